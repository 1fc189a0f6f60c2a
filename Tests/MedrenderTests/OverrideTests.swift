import Foundation
import Medrender
import MedrenderCore
import MedrenderPresets
import MedrenderTestSupport
import Testing

/// What people vary most, given on the command line (and the service) instead of in the preset:
/// settle, closing, ambience, voice, bells, seed.
@Suite struct OverrideTests {
    static let library = PresetLibrary(root: PackagePaths.root)

    @Test func overridesReplaceThePresetsValues() throws {
        var p = SessionRequest(preset: "box-breath")
        p.settle = 5
        p.closing = 90.5
        p.ambience = try BedChoice(parsing: "ocean, rain")
        p.noVoice = true
        p.bells = try BellChoice(parsing: "voice-hold")
        p.seed = 42
        let (session, _, _) = try p.loadSession(library: Self.library)
        #expect(session.settle == .seconds(5))
        #expect(session.closing == SessionTime(milliseconds: 90_500))
        #expect(session.ambience.map(\.sound) == [SoundRef("ocean"), SoundRef("rain")])
        // The preset's bed level stays.
        #expect(session.ambience.allSatisfy { $0.levelLUFS == -26 })
        #expect(session.voice.intro == nil && session.voice.outro == nil && session.voice.prompts.isEmpty)
        #expect(session.bells.start == SoundRef("voice-hold") && session.bells.end == SoundRef("voice-hold"))
        #expect(session.seed == 42)

        var none = SessionRequest(preset: "box-breath")
        none.ambience = try BedChoice(parsing: "none")
        none.bells = try BellChoice(parsing: "none")
        let (quiet, _, _) = try none.loadSession(library: Self.library)
        #expect(quiet.ambience.isEmpty)
        #expect(quiet.bells.start == nil && quiet.bells.end == nil)
        // Nothing given: the preset as written.
        let (plain, _, _) = try SessionRequest(preset: "box-breath").loadSession(library: Self.library)
        #expect(plain.settle == .seconds(20) && plain.voice.intro != nil && plain.bells.start == SoundRef("bell") && plain.seed == 1)
    }

    /// The layers' levels and the duck, as a sox user sets them on the command line: every bed
    /// (a segment's own too), the voice and the duck take the values given; out of range, each is
    /// a usage error that names its field.
    @Test func levelsAndTheDuckReplaceThePresets() throws {
        var p = SessionRequest(preset: "guided-sleep-478")
        p.ambienceLevel = -31.5
        p.voiceLevel = -18
        p.duck = -12
        let (session, _, _) = try p.loadSession(library: Self.library)
        #expect(!session.ambience.isEmpty && session.ambience.allSatisfy { $0.levelLUFS == -31.5 })
        #expect(session.segments.allSatisfy { $0.ambience.map { $0.levelLUFS == -31.5 } ?? true })
        #expect(session.voice.levelLUFS == -18)
        #expect(session.voice.duckDecibels == -12)
        let (plain, _, _) = try SessionRequest(preset: "guided-sleep-478").loadSession(library: Self.library)
        #expect(plain.voice.duckDecibels != -12 && plain.voice.levelLUFS != -18)
        for (field, change) in [("ambience-level", { (p: inout SessionRequest) in p.ambienceLevel = -5 }),
                                ("voice-level", { (p: inout SessionRequest) in p.voiceLevel = -80 }),
                                ("duck", { (p: inout SessionRequest) in p.duck = 3 })] {
            var bad = SessionRequest(preset: "guided-sleep-478")
            change(&bad)
            #expect {
                _ = try bad.loadSession(library: Self.library)
            } throws: { error in
                (error as? ParameterError).map { $0.parameter == field && $0.description.contains("is out of range") } ?? false
            }
        }
    }

    /// A value out of its limit, or text that is not one, is a usage error that names the field,
    /// from the text's parser (`BedChoice`, `BellChoice`) or from the one check of the limits.
    @Test func badOverridesAreUsageErrors() {
        var cases: [(() throws -> Void, String)] = []
        func loading(_ change: @escaping (inout SessionRequest) -> Void) -> () throws -> Void {
            {
                var p = SessionRequest(preset: "box-breath")
                change(&p)
                _ = try p.loadSession(library: Self.library)
            }
        }
        cases.append((loading { $0.settle = -1 }, "--settle -1.0 is out of range; give 0 to 3600 seconds"))
        cases.append((loading { $0.closing = 4000 }, "--closing 4000.0 is out of range"))
        cases.append((loading { $0.seed = -3 }, "--seed -3 is out of range"))
        cases.append((loading { $0.inhale = 400 }, "--inhale 400.0 is out of range; give 0 to 300 seconds"))
        cases.append((loading { $0.rate = 7000 }, "--rate 7000 is out of range; give 8000 to 192000 Hz"))
        cases.append(({ _ = try BedChoice(parsing: "rain,,ocean") }, "--ambience rain,,ocean has an empty name"))
        cases.append(({ _ = try BellChoice(parsing: " ") }, "--bells needs a sound's name"))
        cases.append(({ _ = try PatternChoice(parsing: "4-x") }, "--pattern 4-x:"))
        cases.append(({ _ = try LanguageCatalog.stock.language(parsing: "xx") }, "--language xx is not one medrender has words for"))
        for (body, message) in cases {
            #expect {
                try body()
            } throws: { error in
                guard let error = error as? ParameterError else { return false }
                // The command line's wording, and the query's: `settle=-1.0 is out of range…`.
                let query = error.worded(for: .query)
                return error.category == .usage && error.description.contains(message)
                    && query.hasPrefix(error.parameter + (error.value.map { "=\($0)" } ?? ""))
                    && !query.contains("--")
            }
        }
    }

    /// The library speaks of fields; each face names them: a flag on the command line, a query
    /// parameter over HTTP, also where a message names another parameter.
    @Test func aParameterErrorIsWordedByEachFace() {
        #expect {
            _ = try LengthChoice(minutes: 5, cycles: 3)
        } throws: { error in
            guard let error = error as? ParameterError else { return false }
            return error.worded(for: .commandLine) == "--minutes and --cycles are both given; give one of them"
                && error.worded(for: .query) == "minutes and cycles are both given; give one of them"
        }
        let format = ParameterError("format", value: "wav", "does not match -o x.ogg; drop {format}")
        #expect(format.description == "--format wav does not match -o x.ogg; drop --format")
        #expect(format.worded(for: .query) == "format=wav does not match -o x.ogg; drop format")
        #expect(ParameterError("pattern", value: "4-x", ": 'x' is not a number").worded(for: .query) == "pattern=4-x: 'x' is not a number")
    }

    /// An unknown bed named on the command line is the missing sound it would be in a preset.
    @Test func anUnknownAmbienceIsAMissingSound() throws {
        var p = SessionRequest(preset: "box-breath")
        p.ambience = try BedChoice(parsing: "waterfal")
        let (request, _) = try p.renderRequest(library: Self.library, destination: .standardOutput)
        #expect {
            _ = try request.job()
        } throws: { "\($0)".contains("waterfal") }
    }
}
