# Included right after llama.cpp's project() when the wheel is compiled (scripts/setup.sh passes it as
# CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python turns llama.cpp's common library on for its image and audio
# chat handlers, which the lab never loads (LLAVA_BUILD is off); common and the HTTP library it links are half of
# the wheel's compile. llama-server needs them: scripts/build_llama_server.sh configures the same tree again
# without this file, and compiles them then.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "Build llama.cpp common library" FORCE)
include(${CMAKE_CURRENT_LIST_DIR}/llama_core_unity.cmake)
