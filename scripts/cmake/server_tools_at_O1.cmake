# Included after every project() of the llama-server build (scripts/build_llama_server.sh passes it as
# CMAKE_PROJECT_INCLUDE). The server's own code (request handling, JSON, chat templates, the multimodal library)
# is compiled at -O1, which takes a third less time than -O3 here; the model's arithmetic is in ggml and llama,
# which keep the wheel's -O3 objects. A later -O on the command line wins, so the option is appended per target.
if(NOT COMMAND lclab_server_tools_at_O1)
  function(lclab_server_tools_at_O1)
    foreach(target llama-common llama-common-base cpp-httplib mtmd server-context llama-server-impl llama-server)
      if(TARGET ${target})
        set_property(TARGET ${target} APPEND PROPERTY COMPILE_OPTIONS -O1)
      endif()
    endforeach()
  endfunction()
  # Deferred to the end of the top directory: the targets exist only once every subdirectory is read.
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL lclab_server_tools_at_O1)
endif()
