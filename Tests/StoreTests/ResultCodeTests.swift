import Testing
@testable import Store

@Suite struct ResultCodeTests {
    @Test func extendedCodesMatchTheirPrimaryCodeByName() {
        let ioWrite = DatabaseError(extendedCode: 10 | (3 << 8), message: "disk I/O error")  // SQLITE_IOERR_WRITE
        #expect(ioWrite.resultCode == .ioError)
        #expect(ioWrite.extendedCode == 778)
        #expect(ResultCode(rawValue: 2067) == .constraint)  // SQLITE_CONSTRAINT_UNIQUE
    }

    @Test func onlyPassingCausesAreTransient() {
        for code in [ResultCode.busy, .locked, .noMemory, .readOnly, .ioError, .full, .cannotOpen, .lockProtocol] {
            #expect(code.isTransient, "\(code)")
        }
        for code in [ResultCode.error, .constraint, .misuse, ResultCode(rawValue: 11)] {  // 11: SQLITE_CORRUPT
            #expect(!code.isTransient, "\(code)")
        }
        #expect(DatabaseError(extendedCode: 13, message: "full").isTransient)
        #expect(!DatabaseError(extendedCode: 19, message: "constraint").isTransient)
    }
}
