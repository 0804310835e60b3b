import Foundation

/// How many times slower than a plain debug build this run may be, for the tests' time bounds:
/// `SEXTANT_TEST_TIME_SCALE`, default 1. `scripts/sanitize` sets 2 under AddressSanitizer and 4 under
/// ThreadSanitizer, which slow the service's loop, and a bound on speed says nothing about memory errors
/// or races.
public let testTimeScale = ProcessInfo.processInfo.environment["SEXTANT_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1
