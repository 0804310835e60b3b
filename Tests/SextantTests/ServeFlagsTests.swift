import Testing
import Server
@testable import sextant

@Suite struct ServeFlagsTests {
    @Test("--max-clock-ahead and --max-clock-behind set the limits; bad values are usage errors naming the flag")
    func clockFlags() throws {
        let defaults = try ServeCommand.makeConfig(ServeCommand.arguments([]))
        #expect(defaults.maxClockAhead == 2 && defaults.maxClockBehind == 0)
        let c = try ServeCommand.makeConfig(ServeCommand.arguments(["--max-clock-ahead", "0.5", "--max-clock-behind=600"]))
        #expect(c.maxClockAhead == 0.5)
        #expect(c.maxClockBehind == 600)
        #expect(try ServeCommand.makeConfig(ServeCommand.arguments(["--max-clock-ahead", "0"])).maxClockAhead == 0)
        for (argv, flag) in [(["--max-clock-ahead", "-1"], "--max-clock-ahead"), (["--max-clock-behind", "nan"], "--max-clock-behind"),
                             (["--max-clock-ahead", "2s"], "--max-clock-ahead"), (["--max-clock-behind", "inf"], "--max-clock-behind")] {
            do {
                _ = try ServeCommand.makeConfig(ServeCommand.arguments(argv))
                Issue.record("\(argv) was accepted")
            } catch let e as CommandError {
                #expect(e.code == .usage, "\(argv)")
                #expect(e.message.hasPrefix("serve: \(flag) must be"), "\(e.message)")
            }
        }
        #expect(ServeCommand.help.contains("--max-clock-ahead S"))
        #expect(ServeCommand.help.contains("--max-clock-behind S"))
    }

    @Test("--max-lateness reaches the engine's config; a negative value is a usage error")
    func latenessFlag() throws {
        let defaults = try ServeCommand.makeConfig(ServeCommand.arguments([]))
        #expect(defaults.maxLateness == 1 && defaults.engine.maxLateness == 1)
        let c = try ServeCommand.makeConfig(ServeCommand.arguments(["--max-lateness", "0.25"]))
        #expect(c.engine.maxLateness == 0.25)
        #expect(throws: CommandError.self) { try ServeCommand.makeConfig(ServeCommand.arguments(["--max-lateness", "-1"])) }
        #expect(ServeCommand.help.contains("--max-lateness S"))
        #expect(defaults.anchorSilence == 30)
        #expect(try ServeCommand.makeConfig(ServeCommand.arguments(["--anchor-silence", "0"])).anchorSilence == 0)
        #expect(throws: CommandError.self) { try ServeCommand.makeConfig(ServeCommand.arguments(["--anchor-silence", "-5"])) }
        #expect(ServeCommand.help.contains("--anchor-silence S"))
    }
}
