# capstan_library(<target> <folder> <deps...>)
# A static library made of every .cpp under <folder>; headers are included as
# "<folder>/<file>.hpp" from the project root. A layer with no sources yet is an
# interface library, so targets may link it before its first file lands.
function(capstan_library target folder)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${folder}/*.cpp")
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
    target_link_libraries(${target} PUBLIC ${ARGN} PRIVATE capstan_warnings)
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE "${PROJECT_SOURCE_DIR}")
    target_link_libraries(${target} INTERFACE ${ARGN})
  endif()
endfunction()
