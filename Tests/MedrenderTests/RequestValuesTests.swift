import Medrender
import MedrenderCore
import MedrenderIO
import Testing

/// The request's values that arrive as text, read once for every face.
@Suite struct RequestValuesTests {
    @Test(arguments: [("44100", 44100), ("44.1k", 44100), ("22.05k", 22050), ("48kHz", 48000), ("48 kHz", 48000),
                      ("8000Hz", 8000), ("96K", 96000), (" 16000 ", 16000), ("7.999k", 7999)])
    func ratesAreReadInHertzOrKilohertz(text: String, hertz: Int) throws {
        #expect(SampleRateText.hertz(text) == hertz)
        #expect(try SampleRateText.parse(text) == hertz)
    }

    @Test(arguments: ["", "k", "44.1x", "44.1001k", "22050.5", "fast", "1e12", "nan", "inf"])
    func whatIsNotARateSaysHowToWriteOne(text: String) {
        #expect(SampleRateText.hertz(text) == nil, "\(text)")
        #expect(throws: ParameterError("rate", value: text, "is not a rate; give whole hertz (44100) or kilohertz (44.1k)")) {
            try SampleRateText.parse(text)
        }
    }

    @Test func formatsAreNamedInAnyCaseAndTheOthersListTheNames() throws {
        #expect(try FormatName(parsing: "OGG") == .ogg)
        #expect(try FormatName(parsing: "oga") == .ogg)
        #expect(try FormatName(parsing: "Wave") == .wav)
        #expect(FormatName.wav.format(quality: 4, bits: nil) == .wav(.int16))
        #expect(FormatName.flac.format(quality: 4, bits: .int24) == .flac(.int24))
        #expect(FormatName.opus.format(quality: 2, bits: nil) == .opus(quality: 2))
        #expect(OutputFormat.names == ["ogg", "wav", "flac", "opus", "mp3"])
        let error = #expect(throws: ParameterError.self) { try FormatName(parsing: "aiff") }
        #expect(error?.worded(for: .commandLine) == "--format aiff is not one medrender writes; choose ogg, wav, flac, opus or mp3")
        #expect(error?.worded(for: .query) == "format=aiff is not one medrender writes; choose ogg, wav, flac, opus or mp3")
    }

    @Test func layersAreAListAndAnUnknownOneIsNamed() throws {
        #expect(try Layer.parseList("cues, bells") == [.cues, .bells])
        #expect(try Layer.parseList("beats,cues,cues") == [.beats, .cues])
        #expect(Layer.listed([.bells, .cues, .voice]) == "cues,voice,bells")
        let error = #expect(throws: ParameterError.self) { try Layer.parseList("cues,drums") }
        #expect(error?.worded(for: .query) == "layers=cues,drums names an unknown layer 'drums'; choose from cues, voice, ambience, bells, beats")
        #expect(throws: ParameterError.self) { try Layer.parseList("cues,") }
        #expect(try SampleFormat(parsing: "32f") == .float32)
        #expect(throws: ParameterError("bits", value: "20", "is not supported; use 16, 24 or 32f")) { try SampleFormat(parsing: "20") }
    }
}
