# cmake -DREPO=<source dir> -DWORK=<scratch dir> -P check_includes_test.cmake
# cmake/check_includes.cmake on a planted tree: upward includes written relatively ("../") and
# with angle brackets fail with their file:line, allowed ones pass; then every layer of the real
# tree passes.
cmake_minimum_required(VERSION 3.22)
set(checker ${REPO}/cmake/check_includes.cmake)
set(tree ${WORK}/src)
file(REMOVE_RECURSE ${WORK})
file(WRITE ${tree}/core/judge/verdict.h "#pragma once\n")
file(WRITE ${tree}/core/base/text.h "#pragma once\n")
file(WRITE ${tree}/core/model/sizes.h "#pragma once\n")
file(WRITE ${tree}/core/model/planted.cpp "// planted\n#include \"../judge/verdict.h\"\n")
file(WRITE ${tree}/core/model/planted_angle.h "#pragma once\n#include <vector>\n#include <core/judge/verdict.h>\n")
# Allowed: its own folder, relative or not, a layer below, and headers of no layer.
file(WRITE ${tree}/core/model/allowed.cpp
     "#include \"sizes.h\"\n#include \"../base/text.h\"\n#include <core/base/text.h>\n#include \"copy_kernels.h\"\n")

function(run_check source layer out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${source} -DLAYER=${layer}
                          -DSTAMP=${WORK}/${layer}.stamp -P ${checker}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

set(failures "")
run_check(${tree} model rc text)
if(rc EQUAL 0)
  string(APPEND failures "the planted tree passed the check\n")
endif()
foreach(want
    "src/core/model/planted.cpp:2: #include \"../judge/verdict.h\" (src/core/judge/verdict.h) reaches up from model"
    "src/core/model/planted_angle.h:3: #include <core/judge/verdict.h> reaches up from model")
  string(FIND "${text}" "${want}" at)
  if(at EQUAL -1)
    string(APPEND failures "the check did not say: ${want}\n")
  endif()
endforeach()
string(FIND "${text}" "allowed.cpp" at)
if(NOT at EQUAL -1)
  string(APPEND failures "the check refused an allowed include\n")
endif()

# The real tree: every layer of cmake/layers.cmake passes.
set(layers "")
macro(peerbench_layer name dir)
  list(APPEND layers ${name})
endmacro()
include(${REPO}/cmake/layers.cmake)
foreach(layer IN LISTS layers)
  run_check(${REPO}/src ${layer} real_rc real_text)
  if(NOT real_rc EQUAL 0)
    string(APPEND failures "src/ fails the check of ${layer}:\n${real_text}\n")
  endif()
endforeach()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "${failures}the check said:\n${text}")
endif()
list(LENGTH layers n)
message(STATUS "planted upward includes refused with their file:line; the ${n} layers of src/ pass")
