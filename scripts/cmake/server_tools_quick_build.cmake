# Included after every project() of the llama-server build (scripts/build_llama_server.sh passes it as
# CMAKE_PROJECT_INCLUDE). The server's own code (request handling, JSON, chat templates, the multimodal library) is
# compiled unoptimized (-O0) and as unity builds (a few files per compiler run), which read the big JSON and template
# headers once per batch rather than once per file: 135 s -> 73 s here on 2 cores as -O1 unity builds, 85 -> 67 s
# wall (165 -> 127 core-seconds) from -O1 to -O0 on a later machine. The model's arithmetic is in ggml and llama,
# which keep the wheel's -O3 objects: served through either build, the 0.5B generated ~39 tokens/s and read a
# 1,000-token prompt at ~145 tokens/s, and the tests against the server took 41-45 s. A later -O on the command line
# wins, so the option is appended per target.
if(NOT COMMAND lclab_server_tools_quick_build)
  function(lclab_server_tools_quick_build)
    foreach(target llama-common llama-common-base cpp-httplib mtmd server-context llama-server-impl llama-server)
      if(TARGET ${target})
        set_property(TARGET ${target} APPEND PROPERTY COMPILE_OPTIONS -O0)
        set_property(TARGET ${target} PROPERTY UNITY_BUILD ON)
        # Files that cannot share a compiler run: json.cpp specializes a template the others instantiate first;
        # the mtmd helpers refuse to see mtmd's internal headers.
        get_target_property(sources ${target} SOURCES)
        get_target_property(folder ${target} SOURCE_DIR)
        foreach(source ${sources})
          if(source MATCHES "(^|/)(json|mtmd-helper|mtmd-helper-gen)\\.cpp$")
            cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${folder})  # this call runs in the top folder
            set_property(SOURCE ${source} DIRECTORY ${folder} PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
          endif()
        endforeach()
      endif()
    endforeach()
  endfunction()
  # Deferred to the end of the top directory: the targets exist only once every subdirectory is read.
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL lclab_server_tools_quick_build)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/llama_core_unity.cmake)  # llama as the wheel configured it
