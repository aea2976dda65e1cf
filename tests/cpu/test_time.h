#pragma once
#include <ctime>

// Time bounds of the CPU tests. They are set for an optimised build; under AddressSanitizer
// (with CI's libFuzzer coverage on top) the same work runs 5-30 times slower, so a bound there
// only guards against a hang: each bound is multiplied by kTimeFactor.
namespace peerbench::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

inline constexpr double kTimeFactor = kSanitizedBuild ? 30.0 : 1.0;

// A bound of `seconds` in an optimised build, as this build must hold it.
inline constexpr double time_bound(double seconds) {
  return seconds * kTimeFactor;
}

// CPU seconds this process has spent since it was made. The bounds hold CPU time, not wall
// time: CI runs 8 tests at once on fewer cores, and a 2.6 s walk took 10.9 s of wall time
// there (issue 39's landing CI).
class CpuStopwatch {
 public:
  CpuStopwatch() : start_(now()) {}
  double seconds() const { return now() - start_; }

 private:
  static double now() {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  double start_;
};

}  // namespace peerbench::test
