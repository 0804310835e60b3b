import Numerics
import Testing
import Positioning
import Wire

/// CSV export left formula-like names (`=cmd|…`) live for spreadsheets: a cell starting with `=`, `+`,
/// `-`, `@`, tab or CR is written as quoted text with a leading `'` (the OWASP CSV-injection rule).
@Suite struct CSVInjectionTests {
    @Test("formula-like cells are neutralised; others are written as they are")
    func cells() {
        #expect(PositionExport.csvField("=cmd|' /C calc'!A0") == "\"'=cmd|' /C calc'!A0\"")
        #expect(PositionExport.csvField("+1") == "\"'+1\"")
        #expect(PositionExport.csvField("-2+3") == "\"'-2+3\"")
        #expect(PositionExport.csvField("@SUM(A1)") == "\"'@SUM(A1)\"")
        #expect(PositionExport.csvField("\tx") == "\"'\tx\"")
        #expect(PositionExport.csvField("\rx") == "\"'\rx\"")
        #expect(PositionExport.csvField("=a,\"b\"") == "\"'=a,\"\"b\"\"\"")
        #expect(PositionExport.csvField("T-1") == "T-1")
        #expect(PositionExport.csvField("a,b") == "\"a,b\"")
        #expect(PositionExport.csvField("") == "")
    }

    @Test("a position row with a formula-like site and tag")
    func row() {
        let p = PositionEstimate(site: "@site", tag: "=HYPERLINK(\"x\")", position: Vec3(1, 2, 1.2), velocity: Vec3(0, 0, 0),
                                 covXX: 0.01, covXY: 0, covYY: 0.01, anchors: 4, motion: .moving, time: 5)
        var bytes: [UInt8] = []
        PositionExport.appendCSV(p, to: &bytes)
        let row = String(decoding: bytes, as: UTF8.self)
        #expect(row.hasPrefix("5,\"'@site\",\"'=HYPERLINK(\"\"x\"\")\",1,2,1.2,"), "\(row)")
    }
}
