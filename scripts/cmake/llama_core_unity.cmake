# Included by both llama.cpp builds (wheel_without_common.cmake for the wheel, server_tools_quick_build.cmake for
# llama-server, which reuses the wheel's objects and so must configure llama the same way or compile it again).
# llama.cpp compiles its model graphs as unity builds (16 files per compiler run) but its ~35 core files one by one,
# each reading the same standard headers: 116 of the wheel's 221 core-seconds here. Batched like the models they
# take 30 core-seconds less (113 -> 102 s on 2 cores), at the same -O3: the same tokens, logits and replies from the
# 0.5B byte for byte (checked against the separate build, 2026-11-28). The arithmetic stays in ggml, untouched.
if(NOT COMMAND lclab_llama_core_unity)
  function(lclab_llama_core_unity)
    if(NOT TARGET llama)
      return()
    endif()
    get_target_property(sources llama SOURCES)
    get_target_property(folder llama SOURCE_DIR)
    foreach(source ${sources})
      if(source MATCHES "\\.cpp$" AND NOT source MATCHES "(^|/)models/")
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${folder})  # this call runs in the top folder
        set_property(SOURCE ${source} DIRECTORY ${folder} PROPERTY SKIP_UNITY_BUILD_INCLUSION OFF)
      endif()
    endforeach()
  endfunction()
  # Deferred to the end of the top directory: the target exists only once llama.cpp's src folder is read.
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL lclab_llama_core_unity)
endif()
