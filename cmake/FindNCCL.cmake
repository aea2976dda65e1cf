# FindNCCL: locate the NVIDIA Collective Communications Library.
#
# Tries CONFIG mode first (NCCL ships no CMake package today, but some distributions and
# spack builds do), then searches NCCL_HOME / $ENV{NCCL_HOME}, CUDAToolkit's root and the
# system prefixes. Defines NCCL_FOUND, NCCL_VERSION (read from nccl.h), NCCL_INCLUDE_DIR,
# NCCL_LIBRARY and the imported target NCCL::nccl.

if(TARGET NCCL::nccl)
  set(NCCL_FOUND TRUE)
  return()
endif()

find_package(NCCL CONFIG QUIET NO_CMAKE_PATH NO_CMAKE_ENVIRONMENT_PATH)
if(NCCL_FOUND AND TARGET NCCL::nccl)
  return()
endif()

set(_nccl_hints ${NCCL_HOME} $ENV{NCCL_HOME} ${NCCL_ROOT} $ENV{NCCL_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _nccl_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()
list(APPEND _nccl_hints /usr/local/cuda)

find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${_nccl_hints}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _nccl_ver REGEX "^#define NCCL_(MAJOR|MINOR|PATCH)[ \t]+[0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${_part}[ \t]+([0-9]+)" _m "${_nccl_ver}")
    set(_nccl_${_part} "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT "${_nccl_MAJOR}" STREQUAL "")
    set(NCCL_VERSION "${_nccl_MAJOR}.${_nccl_MINOR}.${_nccl_PATCH}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL
  REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR
  VERSION_VAR NCCL_VERSION
  FAIL_MESSAGE "NCCL not found: install it (libnccl-dev or the NVIDIA HPC SDK) or pass -DNCCL_HOME=/path")

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES
    IMPORTED_LOCATION "${NCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
