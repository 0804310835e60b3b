import Testing
import Server
@testable import sextant

@Suite struct ServeMQTTFlagsTests {
    @Test("--mqtt, --mqtt-prefix, --mqtt-format and --mqtt-instance set the MQTT config; bad values are usage errors")
    func mqttFlags() throws {
        #expect(try ServeCommand.makeConfig(ServeCommand.arguments([])).mqtt == nil)
        let c = try ServeCommand.makeConfig(ServeCommand.arguments(["--mqtt", "mqtts://broker.example", "--mqtt-prefix", "rtls",
                                                                    "--mqtt-format", "lp", "--mqtt-instance", "hall-1"]))
        let m = try #require(c.mqtt)
        #expect(m.host == "broker.example" && m.port == 8883 && m.caFile == MQTTConfig.systemCAFile)
        #expect(m.prefix == "rtls" && m.instance == "hall-1")
        #expect(m.effectiveOutputs == [MQTTConfig.Output(prefix: "rtls", format: .lineProtocol)])
        #expect(m.effectiveClientID == "sextant-hall-1")
        for argv in [["--mqtt", "http://x"], ["--mqtt", "host:0"], ["--mqtt-prefix", "p"], ["--mqtt", "h", "--mqtt-format", "xml"],
                     ["--mqtt", "h", "--mqtt-prefix", "a/+/b"]] {
            #expect(throws: CommandError.self, "\(argv)") { try ServeCommand.makeConfig(ServeCommand.arguments(argv)) }
        }
        #expect(ServeCommand.help.contains("--mqtt URL"))
    }
}
