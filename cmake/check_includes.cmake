# cmake -DSOURCE_DIR=<repo>/src -DLAYER=<name> -DSTAMP=<file> -P check_includes.cmake
# Fails (exit code 1) naming file:line for every #include "a/b.h" of LAYER's files that reaches a
# folder LAYER may not include (cmake/layers.cmake). A file belongs to the layer whose folder is
# the longest prefix of its path; so does an include. Includes of no layer's folder (<...>, the
# kernels' headers) are not checked.
cmake_minimum_required(VERSION 3.22)
set(_layers "")
macro(peerbench_layer name dir)
  list(APPEND _layers ${name})
  set(_dir_${name} ${dir})
  set(_uses_${name} ${ARGN})
endmacro()
include(${CMAKE_CURRENT_LIST_DIR}/layers.cmake)

# The layer owning a path relative to src/ (a file's or an include's), "" when none.
function(_owner path out)
  set(best "")
  set(best_len 0)
  foreach(l IN LISTS _layers)
    string(LENGTH "${_dir_${l}}/" len)
    string(SUBSTRING "${path}" 0 ${len} head)
    if(head STREQUAL "${_dir_${l}}/" AND len GREATER best_len)
      set(best ${l})
      set(best_len ${len})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED _dir_${LAYER})
  message(FATAL_ERROR "check_includes: no layer ${LAYER} in cmake/layers.cmake")
endif()
file(GLOB_RECURSE _files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${_dir_${LAYER}}/*.h
     ${SOURCE_DIR}/${_dir_${LAYER}}/*.cpp ${SOURCE_DIR}/${_dir_${LAYER}}/*.cu)
set(_allowed ${LAYER} ${_uses_${LAYER}})
string(JOIN ", " _allowed_text ${_allowed})
set(_errors "")
foreach(f IN LISTS _files)
  _owner("${f}" owner)
  if(NOT owner STREQUAL LAYER)
    continue()
  endif()
  # Line by line with their numbers: characters that CMake lists treat specially are masked.
  file(READ ${SOURCE_DIR}/${f} text)
  string(REPLACE ";" "<sc>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE "\\" "<bs>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      set(inc "${CMAKE_MATCH_1}")
      _owner("${inc}" target)
      if(NOT target STREQUAL "" AND NOT target IN_LIST _allowed)
        string(APPEND _errors "src/${f}:${n}: #include \"${inc}\" reaches up from ${LAYER} "
               "(src/${_dir_${LAYER}}) to ${target} (src/${_dir_${target}}); ${LAYER} may include: "
               "${_allowed_text} (cmake/layers.cmake)\n")
      endif()
    endif()
  endforeach()
endforeach()
if(NOT _errors STREQUAL "")
  # Plain lines (a FATAL_ERROR's text is re-wrapped), then the failure.
  message(NOTICE "${_errors}")
  message(FATAL_ERROR "includes reaching up from src/${_dir_${LAYER}}: see the lines above")
endif()
file(WRITE ${STAMP} "")
