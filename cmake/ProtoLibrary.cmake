# parlor_proto_library(<target> ROOT <dir> PROTOS <files relative to ROOT> [GRPC] [DEPS <targets>])
#
# Generates C++ (and, with GRPC, gRPC service stubs) for the given .proto files into the build
# tree, keeping their path relative to ROOT, and builds them into a static library. Imports are
# resolved against protos/ and engine/games/ so a game's private state proto can import its
# public proto, and against protos-test/ (the public protos of test-only games, engine/GAMES.md).
set(PARLOR_PROTO_IMPORT_DIRS "${CMAKE_SOURCE_DIR}/protos" "${CMAKE_SOURCE_DIR}/engine/games"
    "${CMAKE_SOURCE_DIR}/protos-test")
set(PARLOR_PROTO_OUT_DIR "${CMAKE_BINARY_DIR}/gen")

function(parlor_proto_library target)
  cmake_parse_arguments(ARG "GRPC" "ROOT" "PROTOS;DEPS" ${ARGN})
  set(srcs)
  set(include_args)
  foreach(dir ${PARLOR_PROTO_IMPORT_DIRS})
    list(APPEND include_args -I "${dir}")
  endforeach()
  list(APPEND include_args -I "${Protobuf_INCLUDE_DIR}")
  foreach(proto ${ARG_PROTOS})
    get_filename_component(abs "${ARG_ROOT}/${proto}" ABSOLUTE)
    string(REGEX REPLACE "\\.proto$" "" stem "${proto}")
    set(outs "${PARLOR_PROTO_OUT_DIR}/${stem}.pb.cc" "${PARLOR_PROTO_OUT_DIR}/${stem}.pb.h")
    set(plugin_args)
    if(ARG_GRPC)
      list(APPEND outs "${PARLOR_PROTO_OUT_DIR}/${stem}.grpc.pb.cc"
                       "${PARLOR_PROTO_OUT_DIR}/${stem}.grpc.pb.h")
      set(plugin_args --grpc_out "${PARLOR_PROTO_OUT_DIR}"
                      "--plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN}")
    endif()
    add_custom_command(
      OUTPUT ${outs}
      COMMAND ${CMAKE_COMMAND} -E make_directory "${PARLOR_PROTO_OUT_DIR}"
      COMMAND protobuf::protoc ${include_args} --cpp_out "${PARLOR_PROTO_OUT_DIR}" ${plugin_args}
              "${abs}"
      DEPENDS "${abs}" protobuf::protoc
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND srcs ${outs})
  endforeach()
  add_library(${target} STATIC ${srcs})
  # Generated code is not ours to lint; keep our warnings strict elsewhere.
  target_compile_options(${target} PRIVATE -Wno-unused-parameter -Wno-error)
  target_include_directories(${target} PUBLIC "${PARLOR_PROTO_OUT_DIR}")
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf ${ARG_DEPS})
  if(ARG_GRPC)
    target_link_libraries(${target} PUBLIC gRPC::grpc++)
  endif()
endfunction()
