# capstan_library(<target> <folder> [EXCLUDE <subfolder>...] [PCH <header>...] [DEPS] <deps...>)
# A static library made of every .cpp under <folder> but those under an excluded
# subfolder (a layer of its own); headers are included as "<folder>/<file>.hpp" from the
# project root. A layer with no sources yet is an interface library, so targets may
# link it before its first file lands.
# PCH names the library's precompiled headers: the third-party and standard headers most
# of its files include, parsed once per library instead of once per file (cmake/pch.cmake).
function(capstan_library target folder)
  cmake_parse_arguments(arg "" "" "EXCLUDE;PCH;DEPS" ${ARGN})
  set(deps ${arg_DEPS} ${arg_UNPARSED_ARGUMENTS})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/${folder}/*.cpp")
  foreach(sub IN LISTS arg_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "^${PROJECT_SOURCE_DIR}/${sub}/")
  endforeach()
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC "${PROJECT_SOURCE_DIR}")
    target_link_libraries(${target} PUBLIC ${deps} PRIVATE capstan_warnings)
    if(arg_PCH)
      target_precompile_headers(${target} PRIVATE ${arg_PCH})
    endif()
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE "${PROJECT_SOURCE_DIR}")
    target_link_libraries(${target} INTERFACE ${deps})
  endif()
endfunction()
