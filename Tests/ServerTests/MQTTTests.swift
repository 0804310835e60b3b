import Foundation
import Testing
import Positioning
import Wire
import SextantTestSupport
@testable import Server

/// MQTT in and out against a real mosquitto (`scripts/with-services`).
extension BrokerLoadTests {
@Suite(.serialized) struct MQTTTests {
    static let site = "demo-warehouse"

    /// Ingest messages of 50 lines on `<prefix>/<site>/ingest` are positioned; positions come out as JSON
    /// on `<prefix>/<site>/tags/<tag>/position`, retained, and the status is `online`, retained.
    @Test func ingestAndPositionsAsJSON() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let watcher = try TestMQTTClient(broker)
        try watcher.subscribe("\(prefix)/#")
        let t = try TestService { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        #expect(watcher.waitForMessage { $0.topic == "\(prefix)/status/test" && $0.text == "online" } != nil)
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        let lines = demoLines(tags: 2, seconds: 3)
        let total = lines.filter { $0 == 10 }.count
        let gateway = try TestMQTTClient(broker)
        for m in messages(of: lines, linesPerMessage: 50) { try gateway.publish("\(prefix)/\(Self.site)/ingest", m) }
        let s = t.waitFor { $0.eventsApplied >= total }
        #expect(s.eventsApplied == total)
        #expect(s.rejectedTotal == 0)
        #expect(s.mqtt?.linesIn == total)
        #expect(s.mqtt?.messagesIn == (total + 49) / 50)
        let position = watcher.waitForMessage { $0.topic == "\(prefix)/\(Self.site)/tags/T0/position" }
        let json = try #require(position.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] })
        #expect(json["type"] as? String == "position")
        #expect(json["tag"] as? String == "T0")
        #expect(json["site"] as? String == Self.site)
        #expect((json["time"] as? String)?.hasSuffix("Z") == true)
        // A subscriber that comes later gets the last position at once: it is retained.
        let late = try TestMQTTClient(broker)
        try late.subscribe("\(prefix)/\(Self.site)/tags/+/position")
        #expect(late.waitForMessage { $0.retained && $0.topic.hasSuffix("/T1/position") } != nil)
        // A clean stop says so on the status topic.
        t.stop()
        #expect(watcher.waitForMessage { $0.topic == "\(prefix)/status/test" && $0.text == "offline" } != nil)
    }

    /// Many outputs of one turn (a TCP gateway's burst of 200 tags) are handed to the output thread together and
    /// each published once: every tag's position reaches the broker (retained), none is dropped, and
    /// the count of MQTT messages is the count of outputs (a removed tag's is two: its retained
    /// position is cleared).
    @Test func aBurstOfOutputsIsPublishedWhole() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let t = try TestService { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.outConnected ?? 0) == 1 }
        let tags = 200
        let lines = demoLines(tags: tags, seconds: 1, prefix: "B")
        let total = lines.filter { $0 == 10 }.count
        let g = try t.gateway()
        try g.writeAll(lines)
        @Sendable func outputs(_ s: ServiceStats) -> Int { s.positionsOut + s.proximityOut + s.zoneEventsOut + 2 * s.removedOut }
        let s = t.waitFor { $0.eventsApplied >= total && ($0.mqtt?.outPublished ?? 0) >= outputs($0) }
        #expect(s.positionsOut > tags)
        #expect(s.mqtt?.outPublished == outputs(s))
        #expect(s.mqtt?.outDropped == 0)
        let late = try TestMQTTClient(broker)
        try late.subscribe("\(prefix)/\(Self.site)/tags/+/position")
        late.pump(timeout: 10) { c in Set(c.messages.filter(\.retained).map(\.topic)).count >= tags }
        let retained = Set(late.messages.filter(\.retained).map(\.topic))
        #expect(retained == Set((0..<tags).map { "\(prefix)/\(Self.site)/tags/\(String(format: "B%03d", $0))/position" }))
    }

    /// An output prefix in line protocol next to one in JSON: the same position on both.
    @Test func lineProtocolAndJSONPrefixes() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let watcher = try TestMQTTClient(broker)
        try watcher.subscribe("\(prefix)-lp/#")
        try watcher.subscribe("\(prefix)-json/#")
        let t = try TestService {
            var m = mqttConfig(broker, prefix: prefix)
            m.outputs = [.init(prefix: "\(prefix)-json", format: .json), .init(prefix: "\(prefix)-lp", format: .lineProtocol)]
            $0.mqtt = m
        }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 && ($0.mqtt?.outConnected ?? 0) == 1 }
        let gateway = try TestMQTTClient(broker)
        for m in messages(of: demoLines(tags: 1, seconds: 2), linesPerMessage: 50) { try gateway.publish("\(prefix)/\(Self.site)/ingest", m) }
        let lp = try #require(watcher.waitForMessage { $0.topic == "\(prefix)-lp/\(Self.site)/tags/T0/position" })
        let parsed = try ParsedLine.parse(lp.text)
        #expect(parsed?.measurement == "position")
        #expect(!lp.text.hasSuffix("\n"))
        #expect(watcher.waitForMessage { $0.topic == "\(prefix)-json/\(Self.site)/tags/T0/position" && $0.text.hasPrefix("{") } != nil)
    }

    /// A malformed payload: its lines are rejected, counted by reason and reported on the rejection
    /// topic; the valid lines of the next message are positioned.
    @Test func malformedPayloadIsReportedAndPositioningGoesOn() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let watcher = try TestMQTTClient(broker)
        try watcher.subscribe("\(prefix)/\(Self.site)/rejected")
        let t = try TestService { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        let gateway = try TestMQTTClient(broker)
        try gateway.publish("\(prefix)/\(Self.site)/ingest", Array("this is not a line\n\u{1}\u{2}\u{ff}garbage\nranging,site=x".utf8))
        let report = try #require(watcher.waitForMessage { _ in true })
        #expect(report.text.contains("# rejected line 1"))
        #expect(report.text.contains("line 3"))
        let lines = demoLines(tags: 1, seconds: 2)
        let total = lines.filter { $0 == 10 }.count
        for m in messages(of: lines, linesPerMessage: 50) { try gateway.publish("\(prefix)/\(Self.site)/ingest", m) }
        let s = t.waitFor { $0.eventsApplied >= total }
        #expect(s.eventsApplied == total)
        #expect(s.rejectedTotal == 3)
        #expect(s.mqtt?.rejectionReports == 1)
        #expect(s.positionsOut > 0)
    }

    /// A 10 MB payload is dropped whole (over `maxMessageBytes`), counted and reported; the next
    /// message is positioned.
    @Test func tenMegabytePayloadIsDropped() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let watcher = try TestMQTTClient(broker)
        try watcher.subscribe("\(prefix)/\(Self.site)/rejected")
        let t = try TestService { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        let gateway = try TestMQTTClient(broker)
        try gateway.publish("\(prefix)/\(Self.site)/ingest", [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20))
        let lines = demoLines(tags: 1, seconds: 1)
        let total = lines.filter { $0 == 10 }.count
        try gateway.publish("\(prefix)/\(Self.site)/ingest", lines)
        let s = t.waitFor { $0.eventsApplied >= total }
        #expect(s.eventsApplied == total)
        #expect(s.mqtt?.messagesTooLarge == 1)
        #expect(s.linesIn == total)
        #expect(watcher.waitForMessage { $0.text.contains("[message_too_large]") } != nil)
    }

    /// A message on the ingest topic of a site not served is counted and reported on that site's
    /// rejection topic; it does not stop the served site.
    @Test func unknownSiteTopic() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let watcher = try TestMQTTClient(broker)
        try watcher.subscribe("\(prefix)/nowhere/rejected")
        let t = try TestService { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        let gateway = try TestMQTTClient(broker)
        let lines = demoLines(tags: 1, seconds: 1)
        let total = lines.filter { $0 == 10 }.count
        try gateway.publish("\(prefix)/nowhere/ingest", lines)
        try gateway.publish("\(prefix)/\(Self.site)/ingest", lines)
        let s = t.waitFor { $0.eventsApplied >= total }
        #expect(s.eventsApplied == total)
        #expect(s.mqtt?.messagesUnknownSite == 1)
        #expect(watcher.waitForMessage { $0.text.contains("unknown site 'nowhere'") } != nil)
    }

    /// Lines naming another site than their topic's are refused as `site_not_allowed`.
    @Test func topicSiteRestrictsLines() throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        let t = try TestService(imports: [demoSiteFile, otherSiteFile]) { $0.mqtt = mqttConfig(broker, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        let gateway = try TestMQTTClient(broker)
        let lines = demoLines(tags: 1, seconds: 1)
        let total = lines.filter { $0 == 10 }.count
        try gateway.publish("\(prefix)/\(otherSite.id)/ingest", lines)
        let s = t.waitFor { $0.rejectedTotal >= total }
        #expect(s.rejected["site_not_allowed"] == total)
        #expect(s.eventsApplied == 0)
    }

    /// The broker goes away and comes back: Sextant logs it, counts it, reconnects with back-off;
    /// outputs meanwhile are dropped and counted (bounded), positioning from TCP goes on, and ingest
    /// over MQTT resumes.
    @Test func brokerGoesAwayAndComesBack() throws {
        let broker = try PrivateBroker()
        let address = (host: "127.0.0.1", port: broker.port)
        let prefix = uniquePrefix()
        let t = try TestService { $0.mqtt = mqttConfig(address, prefix: prefix) }
        defer { t.stop() }
        t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 && ($0.mqtt?.outConnected ?? 0) == 1 }
        broker.stop()
        var s = t.waitFor { ($0.mqtt?.connectionsLost ?? 0) == 2 }
        #expect(s.mqtt?.connectionsLost == 2)
        #expect(s.mqtt?.inConnected == 0)
        // Positioning goes on over TCP while the broker is away; its outputs are dropped and counted.
        let tcp = demoLines(tags: 1, seconds: 2, prefix: "TCP")
        let g = try t.gateway()
        try g.writeAll(tcp)
        let tcpLines = tcp.filter { $0 == 10 }.count
        s = t.waitFor { $0.eventsApplied >= tcpLines && ($0.mqtt?.outDropped ?? 0) > 0 }
        #expect(s.eventsApplied == tcpLines)
        #expect((s.mqtt?.outDropped ?? 0) > 0)
        #expect(!t.log.containing("MQTT in: lost the connection").isEmpty)
        try broker.start()
        s = t.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 && ($0.mqtt?.outConnected ?? 0) == 1 }
        #expect(s.mqtt?.connects == 4)
        let gateway = try TestMQTTClient(address)
        let lines = demoLines(tags: 1, seconds: 1, prefix: "M")
        let total = lines.filter { $0 == 10 }.count
        try gateway.publish("\(prefix)/\(Self.site)/ingest", lines)
        s = t.waitFor { $0.eventsApplied >= tcpLines + total }
        #expect(s.eventsApplied == tcpLines + total)
    }

    /// Sextant stops and starts again during QoS 1 ingest (MQTT 5 and 3.1.1): the broker keeps the
    /// session and queues what gateways publish meanwhile, so no line is lost (a message in flight at
    /// the stop may be delivered twice: QoS 1 is at least once).
    @Test(arguments: [MQTTConfig.ProtocolVersion.v5, .v311])
    func restartDuringQoS1IngestLosesNothing(version: MQTTConfig.ProtocolVersion) throws {
        let broker = try testBroker()
        let prefix = uniquePrefix()
        var m = mqttConfig(broker, prefix: prefix)
        m.protocolVersion = version
        let directory = temporaryDirectory()
        let all = messages(of: demoLines(tags: 4, seconds: 6), linesPerMessage: 50)
        let total = all.reduce(0) { $0 + $1.filter { $0 == 10 }.count }
        let gateway = try TestMQTTClient(broker)
        let topic = "\(prefix)/\(Self.site)/ingest"
        let first = try TestService(directory: directory) { $0.mqtt = m }
        first.waitFor { ($0.mqtt?.inConnected ?? 0) == 1 }
        for msg in all.prefix(all.count / 3) { try gateway.publish(topic, msg) }
        // Stop while messages keep arriving.
        let service = first.service
        let stopper = Thread { service.shutdown() }
        stopper.start()
        for msg in all[(all.count / 3)..<(2 * all.count / 3)] { try gateway.publish(topic, msg) }
        service.waitUntilShutdown()
        let before = service.stats().linesIn
        for msg in all[(2 * all.count / 3)...] { try gateway.publish(topic, msg) }
        let second = try TestService(directory: directory) { $0.mqtt = m }
        defer { second.stop() }
        var s = second.waitFor { before + $0.linesIn >= total }
        if before + s.linesIn < total {
            // A broker may hold a message queued for a session that came back until the next message
            // for that session: one on a topic of the subscription (a site the service does not serve,
            // so it adds no line) lets such a message go. A line the service lost stays lost.
            let short = total - before - s.linesIn
            try gateway.publish("\(prefix)/not-served/ingest", Array("# not a site\n".utf8))
            s = second.waitFor { before + $0.linesIn >= total }
            print("restartDuringQoS1IngestLosesNothing(\(version)): \(short) lines short; after one more message for the session: "
                  + "\(max(0, total - before - s.linesIn)) short")
        }
        // QoS 1 is at least once: a message in flight at the stop may come again (whole messages).
        let duplicated = before + s.linesIn - total
        #expect(duplicated >= 0, "lines lost: \(-duplicated)")
        #expect(duplicated % 50 == 0 && duplicated <= 10 * 50, "\(duplicated) lines delivered twice")
        #expect(before > 0)
        #expect(s.linesIn > 0)
    }
}
}
