import Testing
#if canImport(Glibc)
import Glibc
#endif
import SextantTestSupport
@testable import Server

@Suite struct FileLimitTests {
    /// The service raises a low soft limit on descriptors (1,024 is common) so that it can hold
    /// 1,100 connections, never above the hard limit, and never lowers a higher one.
    @Test func raisesALowSoftLimitUpToTheHardLimit() throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var original = rlimit()
        #expect(getrlimit(resource, &original) == 0)
        defer { _ = setrlimit(resource, &original) }
        let hard = UInt64(original.rlim_max)
        try #require(hard > 1024, "the hard limit leaves nothing to raise")
        var low = original
        low.rlim_cur = 1024
        #expect(setrlimit(resource, &low) == 0)

        let raised = Syscall.raiseOpenFileLimit(to: 2048)
        #expect(raised.before == 1024)
        #expect(raised.after == min(2048, hard))
        var now = rlimit()
        _ = getrlimit(resource, &now)
        #expect(UInt64(now.rlim_cur) == raised.after)

        let again = Syscall.raiseOpenFileLimit(to: 1500)   // already higher: unchanged
        #expect(again.before == again.after && again.after == raised.after)
    }
}
