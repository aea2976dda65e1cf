# Compiles the known-good tables (data/known_good/*.json) into a target as string literals.
# Compiled in rather than read at run time: peerbench is copied to nodes and run from any folder
# with no install step, and a table found beside the binary could belong to another version.
# Editing a table re-runs configure (CMAKE_CONFIGURE_DEPENDS), so a build never keeps a stale copy;
# the CPU tests compare the compiled-in text with the files.
function(peerbench_embed_known_good target)
  set(dir ${PROJECT_SOURCE_DIR}/data/known_good)
  set(entries "")
  foreach(name public.json h200x2_runs.json)
    file(READ ${dir}/${name} text)
    # A raw string literal ends at its delimiter; the data must not contain it.
    string(FIND "${text}" ")pbkg\"" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${dir}/${name} contains )pbkg\", the delimiter of its string literal")
    endif()
    string(APPEND entries "      {\"data/known_good/${name}\", R\"pbkg(${text})pbkg\"},\n")
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 ${dir}/${name})
  endforeach()
  set(PEERBENCH_KNOWN_GOOD_ENTRIES "${entries}")
  set(out ${PROJECT_BINARY_DIR}/generated/core/known_good_data.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/known_good_data.cpp.in ${out} @ONLY)
  target_sources(${target} PRIVATE ${out})
endfunction()
