import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderPresets
import MedrenderTestSupport
import Synchronization
import Testing

/// The embeddable API: a job from a resolved session, to a file, a sink, or a stream of chunks.
@Suite struct RenderJobTests {
    static let yaml = "pattern: 4-2-4-2\nsettle: 2\nclosing: 3\nambience: [rain]\nbells: { start: bell }\n"

    /// Collects what a render writes into it.
    final class Collector: RenderSink, @unchecked Sendable {
        let bytes = Mutex<[UInt8]>([])
        func write(_ raw: UnsafeRawBufferPointer) throws { bytes.withLock { $0 += raw } }
    }

    /// (A streamed WAV puts its markers before the audio, as it cannot go back: there the sink and
    /// the chunks agree with each other, and the samples with the file's.)
    @Test("a file, a sink and a stream of chunks get the same bytes", arguments: ["ogg", "wav", "flac"])
    func everyDestinationGetsTheSameBytes(ext: String) async throws {
        let dir = TemporaryDirectory("job")
        let format = try #require(OutputFormat.named(ext, quality: 4, bits: nil))
        // An OGG under 44.1 kHz is written ahead and sent when done (`DecodedCheck.streamsAsEncoded`).
        let rate = ext == "ogg" ? 44100 : 16000
        let job = try request(Self.yaml, minutes: 0.4, rate: rate, format: format, output: dir.file("a.\(ext)"), dir: dir).job()
        let report = try job.run(to: .file(dir.file("a.\(ext)")))
        let file = try #require(FileManager.default.contents(atPath: dir.file("a.\(ext)")))
        let sink = Collector()
        _ = try job.run(to: .sink(sink))
        let sunk = sink.bytes.withLock { $0 }
        var streamed: [UInt8] = []
        var chunks = 0
        for try await chunk in job.chunks(capacity: 2) {
            streamed += chunk
            chunks += 1
        }
        let sameAsSink = streamed == sunk
        #expect(sameAsSink, "the chunks differ from what the sink got")
        if ext == "wav" {
            let copy = dir.file("streamed.wav")
            FileManager.default.createFile(atPath: copy, contents: Data(streamed))
            let sameSamples = try readSound(copy).samples == readSound(dir.file("a.wav")).samples
            #expect(sameSamples, "the streamed WAV's samples differ from the file's")
        } else {
            let sameAsFile = sunk == [UInt8](file)
            #expect(sameAsFile, "the sink's bytes differ from the file's")
        }
        #expect(chunks > 1 || ext != "ogg", "OGG streams page by page")
        #expect(report.frames == Int64(0.4 * 60 * Double(rate)))
    }

    @Test func aReaderThatStopsEarlyStopsTheRender() async throws {
        let dir = TemporaryDirectory("jobcancel")
        // At 44.1 kHz an OGG is sent as it is encoded (`DecodedCheck.streamsAsEncoded`): the render
        // itself, not only the sending of a finished file, is what the reader's leaving stops.
        let job = try request(Self.yaml, minutes: 5, rate: 44100, format: .ogg(quality: 4), output: dir.file("x.ogg"), dir: dir).job()
        let ended = Mutex<Result<RenderReport, any Error>?>(nil)
        let done = AsyncStream<Void>.makeStream()
        do {
            var taken = 0
            for try await _ in job.chunks(capacity: 1, completion: { result in
                ended.withLock { $0 = result }
                done.continuation.finish()
            }) {
                taken += 1
                if taken == 3 { break }
            }
        }
        for await _ in done.stream {}
        let result = try #require(ended.withLock { $0 })
        switch result {
        case .success: Issue.record("a 5-minute render finished though its reader left after 3 chunks")
        case .failure(let error):
            #expect((error as? any DiagnosedError)?.category == .io && "\(error)".contains("went away"), "\(error)")
        }
    }

    @Test func everyMissingSoundIsNamedAtOnce() throws {
        let dir = TemporaryDirectory("jobmissing")
        let req = try request("pattern: 4-4-4-4\nambience: [rian, oshen]\nbells: { start: bel }\n", minutes: 2, format: .ogg(quality: 4),
                              output: dir.file("x.ogg"), dir: dir)
        #expect {
            _ = try req.job()
        } throws: { error in
            let text = "\(error)"
            return (error as? any DiagnosedError)?.category == .missingInput && text.contains("'rian' (did you mean 'rain'?)")
                && text.contains("'oshen'") && text.contains("'bel' (did you mean 'bell'?)") && text.contains("were not found")
        }
    }

    @Test func aRepeatOfTheSameMixSkipsTheMeasuringPassAndWritesTheSameBytes() throws {
        let dir = TemporaryDirectory("jobcache")
        var job = try request(Self.yaml, minutes: 0.5, rate: 16000, format: .ogg(quality: 4), output: dir.file("a.ogg"), dir: dir).job()
        job.loudnessCache = LoudnessCache()
        let first = Mutex(Set<Int>()), second = Mutex(Set<Int>())
        _ = try job.run(to: .file(dir.file("a.ogg"))) { p in first.withLock { _ = $0.insert(p.pass) } }
        _ = try job.run(to: .file(dir.file("b.ogg"))) { p in second.withLock { _ = $0.insert(p.pass) } }
        // The OGG is decoded as it is written, within pass 2: no pass 3.
        #expect(first.withLock { $0 } == [1, 2])
        #expect(second.withLock { $0 } == [2], "the second render measured again")
        #expect(job.loudnessCache?.count == 1)
        let same = FileManager.default.contents(atPath: dir.file("a.ogg")) == FileManager.default.contents(atPath: dir.file("b.ogg"))
        #expect(same, "the repeat wrote other bytes")
    }
}
