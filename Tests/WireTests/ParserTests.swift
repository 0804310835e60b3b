import Testing
import Positioning
import Wire

@Suite("Line-protocol parser")
struct ParserTests {
    @Test func plainLine() throws {
        let line = try parsed("weather,city=Oslo,unit=c temp=-3.5,hum=80i,ok=t,note=\"cold\" 1700000000000000000")
        #expect(line.measurement == "weather")
        #expect(line.tags == [.init(key: "city", value: "Oslo"), .init(key: "unit", value: "c")])
        #expect(line.fields.map(\.key) == ["temp", "hum", "ok", "note"])
        #expect(line.field("temp") == .float(-3.5))
        #expect(line.field("hum") == .integer(80))
        #expect(line.field("ok") == .boolean(true))
        #expect(line.field("note") == .string("cold"))
        #expect(line.timestamp == 1_700_000_000_000_000_000)
        #expect(line.tag("city") == "Oslo")
        #expect(line.tag("nope") == nil)
    }

    @Test func measurementEscapes() throws {
        #expect(try parsed(#"my\ meas\,ure f=1"#).measurement == "my meas,ure")
        // In a measurement `=` is not special: the backslash stays.
        #expect(try parsed(#"a\=b f=1"#).measurement == #"a\=b"#)
        #expect(try parsed(#"a\=b,t=1 f=1"#).tag("t") == "1")
    }

    @Test func tagEscapes() throws {
        let line = try parsed(#"m,k\ e\=y\,=v\ a\=l\,ue f=1"#)
        #expect(line.tags == [.init(key: "k e=y,", value: "v a=l,ue")])
    }

    @Test func fieldKeyEscapes() throws {
        let line = try parsed(#"m f\ i\=e\,ld=1,g=2"#)
        #expect(line.fields.map(\.key) == ["f i=e,ld", "g"])
    }

    @Test func backslashBeforeOtherBytesIsLiteral() throws {
        #expect(try parsed(#"m,t=a\b f=1"#).tag("t") == #"a\b"#)
        // `\\,`: the first backslash is literal, the second escapes the comma.
        #expect(try parsed(#"m,t=a\\,b f=1"#).tag("t") == #"a\,b"#)
        #expect(try parsed(#"m s="x\y""#).field("s") == .string(#"x\y"#))
    }

    @Test func stringFieldEscapes() throws {
        let line = try parsed(#"m s="a \"q\" b\\c, d=e f=g",n=1"#)
        #expect(line.field("s") == .string(#"a "q" b\c, d=e f=g"#))
        #expect(line.field("n") == .float(1))
        #expect(try parsed(#"m s="""#).field("s") == .string(""))
        #expect(try parsed("m s=\"héllo ✓\"").field("s") == .string("héllo ✓"))
    }

    @Test(arguments: [
        ("1.5", FieldValue.float(1.5)), ("-3", .float(-3)), ("1e-3", .float(0.001)), ("1.5E+2", .float(150)),
        ("+2.5", .float(2.5)), (".5", .float(0.5)), ("5.", .float(5)), ("-0", .float(-0.0)), ("0.000", .float(0)),
        ("12i", .integer(12)), ("-12i", .integer(-12)), ("0i", .integer(0)),
        ("9223372036854775807i", .integer(.max)), ("-9223372036854775808i", .integer(.min)),
        ("12u", .unsigned(12)), ("18446744073709551615u", .unsigned(.max)),
        ("t", .boolean(true)), ("T", .boolean(true)), ("true", .boolean(true)), ("True", .boolean(true)),
        ("TRUE", .boolean(true)), ("f", .boolean(false)), ("F", .boolean(false)), ("false", .boolean(false)),
        ("False", .boolean(false)), ("FALSE", .boolean(false)), ("\"str\"", .string("str")),
    ])
    func fieldTypes(text: String, expected: FieldValue) throws {
        #expect(try parsed("m v=\(text) 1").field("v") == expected)
    }

    @Test func nonFiniteTokensParseAsFloats() throws {
        for text in ["nan", "NaN", "-nan"] {
            let v = try #require(try parsed("m v=\(text)").field("v")?.doubleValue)
            #expect(v.isNaN)
        }
        #expect(try parsed("m v=inf").field("v") == .float(.infinity))
        #expect(try parsed("m v=-Infinity").field("v") == .float(-.infinity))
        #expect(try parsed("m v=1e999").field("v") == .float(.infinity))
    }

    @Test func floatsReadBackExactly() throws {
        // Shortest round-trip forms exercise both the exact fast path and the library fallback.
        var rng = SeededRandom(seed: 7)
        for _ in 0..<5000 {
            let bits = rng.next()
            var value = Double(bitPattern: bits)
            if !value.isFinite { value = Double(Int64(bitPattern: bits)) }
            let text = "\(value)"
            #expect(try parsed("m v=\(text)").field("v") == .float(value), "\(text)")
        }
        // Decimal strings of varied length and exponent against the standard library's parser.
        for _ in 0..<5000 {
            let digits = String(rng.next() % 10_000_000_000_000_000_000)
            let cut = Int(rng.next() % UInt64(digits.count + 1))
            let mantissa = digits.prefix(cut) + "." + digits.dropFirst(cut)
            let exponent = Int(rng.next() % 80) - 40
            let text = "\(mantissa)e\(exponent)"
            let expected = try #require(Double(text))
            #expect(try parsed("m v=\(text)").field("v") == .float(expected), "\(text)")
        }
    }

    @Test(arguments: ["", "   ", "\t", "# comment", "   # indented comment", "\t#x", "\r", "#", "  \r\n"])
    func blankAndCommentLinesAreSkipped(line: String) throws {
        #expect(try ParsedLine.parse(line) == nil)
    }

    @Test func crlfAndNewlineAreTolerated() throws {
        #expect(try parsed("m f=1 5\r").timestamp == 5)
        #expect(try parsed("m f=1 5\r\n").timestamp == 5)
        #expect(try parsed("m s=\"a\"\r").field("s") == .string("a"))
    }

    @Test func timestamps() throws {
        #expect(try parsed("m f=1").timestamp == nil)
        #expect(try parsed("m f=1 ").timestamp == nil)
        #expect(try parsed("m f=1 -5").timestamp == -5)
        #expect(try parsed("m f=1 9223372036854775807").timestamp == .max)
        #expect(try parsed("m f=1   42  ").timestamp == 42)
    }

    @Test func looseWhitespaceIsTolerated() throws {
        let line = try parsed("  m,t=1   f=2")
        #expect(line.measurement == "m")
        #expect(line.field("f") == .float(2))
    }

    @Test func repeatedFieldLastWins() throws {
        #expect(try parsed("m f=1,f=2").field("f") == .float(2))
    }

    @Test func parsesBytes() throws {
        let line = try #require(try ParsedLine.parse(Array("m,t=x f=1i 3".utf8)))
        #expect(line == ParsedLine(measurement: "m", tags: [.init(key: "t", value: "x")],
                                   fields: [.init(key: "f", value: .integer(1))], timestamp: 3))
    }

    @Test(arguments: [
        "m", "m ", ",t=1 f=1", "m,t f=1", "m,=v f=1", "m,t= f=1", "m,t=1", "m,t=1,", "m f", "m f=", "m =1",
        "m f=1,", "m f=1, g=2", "m f=\"abc", "m f=\"a\"x", "m f=abc", "m f=1 2 3", "m,t=a=b f=1", "m f=1.2.3",
        "m f=--1", "m f=1e", "m f=i", "m f=1x", "m f=9223372036854775808i", "m f=-1u",
        "m f=18446744073709551616u", "m f=1 9223372036854775808", "m f=1 12x", "m f=1 1.5", "m f=\"a\" ,",
        "m,t=1,u f=1",
    ])
    func malformedLinesAreRejected(line: String) {
        #expect(lineError(line) != nil, "\(line.debugDescription) should be malformed")
    }

    @Test func errorsSayWhereAndWhy() throws {
        let e = try #require(lineError("m,site= f=1"))
        #expect(e.message == "tag 'site' has an empty value")
        #expect(e.column == 8)
        #expect(try #require(lineError("m f=abc")).message == "field 'f' has an invalid value 'abc'")
        #expect(try #require(lineError("m f=\"abc")).message == "unterminated string in field 'f'")
        #expect(try #require(lineError("m f=1 12x")).description
                == "invalid timestamp '12x' (expected integer nanoseconds) (column 7)")
    }
}
