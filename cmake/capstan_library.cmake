# capstan_library(<target> <folder> <deps...>)
# A static library made of every .cpp under <folder>; headers are included as
# "<folder>/<file>.hpp" from the project root.
function(capstan_library target folder)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${folder}/*.cpp")
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target} PUBLIC ${ARGN} PRIVATE capstan_warnings)
endfunction()
