# Everything the gRPC services need: third-party packages, the service protos, the common library,
# the services themselves and the cross-service tests. Included by the top-level CMakeLists.txt
# only when PARLOR_BUILD_SERVICES is ON, so the engine still builds without any of this.

find_package(Threads REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
find_program(GRPC_PYTHON_PLUGIN grpc_python_plugin)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx)
# libpq itself, for the connections in pipeline mode (libpqxx 6.4 has no API for it).
pkg_check_modules(PQ REQUIRED IMPORTED_TARGET libpq)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(OpenSSL REQUIRED)
include(CommonCore)

# The servers and load tools allocate on every call (gRPC metadata, protobuf messages, libpq
# results) from many threads; glibc's allocator showed ~13 % of the sessions server's CPU under
# load (malloc, free, consolidation). tcmalloc's per-thread caches make that a fraction. Not
# under the sanitizers, which bring their own allocator.
option(PARLOR_TCMALLOC "Link the servers and load tools with tcmalloc (minimal)" ON)
find_library(PARLOR_TCMALLOC_LIBRARY tcmalloc_minimal)
function(parlor_fast_malloc target)
  if(PARLOR_TCMALLOC AND PARLOR_TCMALLOC_LIBRARY AND NOT PARLOR_SANITIZE
     AND NOT PARLOR_BUILD_FUZZERS)
    target_link_libraries(${target} PRIVATE ${PARLOR_TCMALLOC_LIBRARY})
  endif()
endfunction()

find_program(PARLOR_PROMTOOL promtool)
find_program(PARLOR_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(PARLOR_PG_BIN_DIR "/usr/lib/postgresql/15/bin" CACHE PATH "PostgreSQL server binaries")

# Where the per-run PostgreSQL used by *_pgtest.cc lives (started by the ctest fixture `pg`).
set(PARLOR_TEST_PG_DIR "${CMAKE_BINARY_DIR}/pgtest")

# Service protos (one package per service; every service's API lives under protos/parlor/<area>/v1).
parlor_proto_library(parlor_accounts_proto
  ROOT "${CMAKE_SOURCE_DIR}/protos"
  PROTOS parlor/accounts/v1/accounts.proto
  GRPC)
add_library(parlor::accounts_proto ALIAS parlor_accounts_proto)

# Python stubs for the client tests (what a mobile team does with Swift/Kotlin).
set(PARLOR_PYTHON_GEN_DIR "${CMAKE_BINARY_DIR}/gen/python")
set(PARLOR_PUBLIC_PROTOS parlor/accounts/v1/accounts.proto)
set(python_stub_outputs)
set(python_stub_inputs)
foreach(proto ${PARLOR_PUBLIC_PROTOS})
  list(APPEND python_stub_inputs "${CMAKE_SOURCE_DIR}/protos/${proto}")
  string(REGEX REPLACE "\\.proto$" "" stem "${proto}")
  list(APPEND python_stub_outputs "${PARLOR_PYTHON_GEN_DIR}/${stem}_pb2.py"
       "${PARLOR_PYTHON_GEN_DIR}/${stem}_pb2_grpc.py")
endforeach()
if(GRPC_PYTHON_PLUGIN)
  add_custom_command(
    OUTPUT ${python_stub_outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${PARLOR_PYTHON_GEN_DIR}"
    COMMAND protobuf::protoc -I "${CMAKE_SOURCE_DIR}/protos" --python_out "${PARLOR_PYTHON_GEN_DIR}"
            --pyi_out "${PARLOR_PYTHON_GEN_DIR}" --grpc_out "${PARLOR_PYTHON_GEN_DIR}"
            "--plugin=protoc-gen-grpc=${GRPC_PYTHON_PLUGIN}" ${PARLOR_PUBLIC_PROTOS}
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}/protos"
    DEPENDS ${python_stub_inputs} protobuf::protoc
    COMMENT "Python stubs for the public protos"
    VERBATIM)
  add_custom_target(parlor_python_stubs ALL DEPENDS ${python_stub_outputs})
endif()

# PostgreSQL test harness: one server per ctest run (fixture `pg`), a fresh database per test.
add_library(parlor_pgtest STATIC "${CMAKE_SOURCE_DIR}/tests/pg/pg_test_database.cc")
add_library(parlor::pgtest ALIAS parlor_pgtest)
target_include_directories(parlor_pgtest PUBLIC "${CMAKE_SOURCE_DIR}")
target_compile_definitions(parlor_pgtest PRIVATE PARLOR_TEST_PG_DIR="${PARLOR_TEST_PG_DIR}")
target_link_libraries(parlor_pgtest PUBLIC parlor::common_core parlor::testing PkgConfig::PQXX
                      GTest::gtest absl::statusor)
add_test(NAME pg_server_start
         COMMAND bash "${CMAKE_SOURCE_DIR}/tests/pg/pg_test_server.sh" start "${PARLOR_TEST_PG_DIR}")
add_test(NAME pg_server_stop
         COMMAND bash "${CMAKE_SOURCE_DIR}/tests/pg/pg_test_server.sh" stop "${PARLOR_TEST_PG_DIR}")
set_tests_properties(pg_server_start PROPERTIES FIXTURES_SETUP pg LABELS pg)
set_tests_properties(pg_server_stop PROPERTIES FIXTURES_CLEANUP pg LABELS pg)

# Registers the gtest cases of `target` (built from *_pgtest.cc files) with label `pg`, needing
# the per-run PostgreSQL.
function(parlor_add_pgtest target)
  gtest_discover_tests(${target}
    PROPERTIES LABELS "pg" FIXTURES_REQUIRED pg
    ENVIRONMENT "PARLOR_TEST_PG_DIR=${PARLOR_TEST_PG_DIR}")
endfunction()

add_subdirectory(services)
add_subdirectory(tests)
