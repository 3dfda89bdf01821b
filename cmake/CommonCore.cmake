# The part of services/common that needs neither gRPC nor PostgreSQL (config, logging, tokens,
# thread pool, ...). It is included from Services.cmake, and on its own by the top-level
# CMakeLists.txt when services are off, so its unit tests also run in the sanitizer build.
include_guard(GLOBAL)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(spdlog CONFIG REQUIRED)
add_subdirectory("${CMAKE_SOURCE_DIR}/services/common/core" "${CMAKE_BINARY_DIR}/services/common/core")
