#pragma once
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

}  // namespace peerbench::test
