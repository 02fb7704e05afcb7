# Sanitizer builds (issue 17). ASCEND_SIM_SANITIZE selects one:
#   address  AddressSanitizer + UndefinedBehaviorSanitizer (any UB aborts the test)
#   thread   ThreadSanitizer
#   (empty)  none
# The flags apply to every target defined after this file is included, in this
# directory and below: the simulator and its tests, or, included from the
# top-level project, the plugin and its tests too. A sanitized build is slow
# and meant for the test programs (ci/sanitize.sh), not for Python.
#
# Note [Sanitizer flags]
# -O1 keeps the sanitized tests fast enough for CI while keeping stack traces
# usable (-fno-omit-frame-pointer, -g1: line tables, which is all a report's
# file:line frames need; full -g debug info of the ATen-heavy plugin made the
# two sanitized builds the longest part of CI). UBSan's vptr check is off: the
# libraries are built with hidden visibility, so a type's typeinfo can exist
# once per library, which vptr reports as a false "wrong dynamic type". Its
# enum check is off too: the C API takes enums (aclFormat, aclDataType, ...)
# from C and Python callers, for whom any int is a valid value, and validates
# them (the tests pass out-of-range values on purpose); C++'s narrower range
# of an enum without a fixed type does not apply at that boundary.
include_guard(GLOBAL)
set(ASCEND_SIM_SANITIZE "" CACHE STRING "Sanitized build: address (ASan + UBSan), thread (TSan) or empty")
set_property(CACHE ASCEND_SIM_SANITIZE PROPERTY STRINGS "" address thread)

if(ASCEND_SIM_SANITIZE STREQUAL "address")
  set(_ascend_sim_sanitize_flags -fsanitize=address,undefined -fno-sanitize=vptr,enum -fno-sanitize-recover=undefined)
elseif(ASCEND_SIM_SANITIZE STREQUAL "thread")
  set(_ascend_sim_sanitize_flags -fsanitize=thread)
elseif(NOT ASCEND_SIM_SANITIZE STREQUAL "")
  message(FATAL_ERROR "ASCEND_SIM_SANITIZE='${ASCEND_SIM_SANITIZE}': use address, thread or leave it empty")
endif()

if(ASCEND_SIM_SANITIZE)
  add_compile_options(${_ascend_sim_sanitize_flags} -fno-omit-frame-pointer -g1 -O1)
  add_link_options(${_ascend_sim_sanitize_flags})
  message(STATUS "ascend_sim: sanitized build (${ASCEND_SIM_SANITIZE})")
endif()

# Note [Uninstrumented test programs under ASan]
# In the address build the GoogleTest programs' own code is compiled without the sanitizers
# (they still link the runtime): ASan and UBSan check the simulator's and the plugin's code,
# where every access the tests provoke happens, and the tests' instrumentation found nothing of
# its own while it cost a third of that tree's build. The thread build keeps its (few) test
# files instrumented: a race between a test's thread and a library thread needs both sides.
function(ascend_sim_uninstrumented_test_program target)
  if(NOT ASCEND_SIM_SANITIZE STREQUAL "address")
    return()
  endif()
  get_target_property(options ${target} COMPILE_OPTIONS)
  list(FILTER options EXCLUDE REGEX "^-f(no-)?sanitize")
  set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS ${options})
  # The runtime still handles signals (a SEGV becomes its report and an abort): tests that
  # expect a fault ask for this, not for the compiler's __SANITIZE_ADDRESS__.
  target_compile_definitions(${target} PRIVATE ASCEND_SIM_SANITIZER_RUNTIME=1)
endfunction()

