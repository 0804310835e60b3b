import Testing
@testable import Server

@Suite struct MQTTConfigTests {
    @Test func brokerAddresses() {
        #expect(MQTTConfig.parseBroker("mqtt://10.0.0.5:1884")! == ("10.0.0.5", 1884, false))
        #expect(MQTTConfig.parseBroker("broker")! == ("broker", 1883, false))
        #expect(MQTTConfig.parseBroker("mqtts://[::1]")! == ("::1", 8883, true))
        for bad in ["", "mqtt://", "host:x", "host:70000", "a/b:1", "[::1"] { #expect(MQTTConfig.parseBroker(bad) == nil, "\(bad)") }
    }

    @Test func configFileObject() throws {
        var c = ServiceConfig()
        try c.apply(json: Array(#"""
            {"mqtt": {"broker": "mqtt://127.0.0.1:1883", "protocol": "3.1.1", "username": "u", "password": "p",
                      "outputs": [{"prefix": "a", "format": "json"}, {"prefix": "b", "format": "lp"}],
                      "precision": {"hall": "ms"}, "sessionExpiry": 60}}
            """#.utf8))
        let m = try #require(c.mqtt)
        #expect(m.protocolVersion == .v311 && m.username == "u" && m.password == "p" && m.sessionExpiry == 60)
        #expect(m.effectiveOutputs.map(\.format) == [.json, .lineProtocol])
        #expect(m.precision["hall"] == .ms)
        for (json, key) in [(#"{"mqtt": {}}"#, "mqtt.broker"), (#"{"mqtt": {"broker": "h", "qos": 1}}"#, "mqtt.qos"),
                            (#"{"mqtt": {"broker": "h", "protocol": "4"}}"#, "mqtt.protocol"),
                            (#"{"mqtt": {"broker": "h", "outputs": [{"prefix": "a"}, {"prefix": "a"}]}}"#, "mqtt.outputs"),
                            (#"{"mqtt": {"broker": "h", "maxMessageBytes": 10}}"#, "mqtt.maxMessageBytes")] {
            var d = ServiceConfig()
            #expect(throws: ConfigError.self, "\(json)") { try d.apply(json: Array(json.utf8)) }
            do { try d.apply(json: Array(json.utf8)) } catch { #expect(error.key == key, "\(json)") }
        }
    }

    @Test func topicLevels() {
        #expect(MQTTTopic.tagBase(prefix: "s", site: "hall", tag: "a/b+#%") == "s/hall/tags/a%2Fb%2B%23%25/")
        #expect(MQTTTopic.site(ofIngest: "s/h%2Fx/ingest", prefix: "s") == "h/x")
        #expect(MQTTTopic.site(ofIngest: "s/a/b/ingest", prefix: "s") == nil)
        #expect(MQTTTopic.site(ofIngest: "t/a/ingest", prefix: "s") == nil)
    }
}
