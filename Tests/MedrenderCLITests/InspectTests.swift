import Foundation
import MedrenderTestSupport
import Testing

/// `inspect` on files medrender did not write.
@Suite struct InspectTests {
    /// A 5.1 WAV (WAVE_FORMAT_EXTENSIBLE, channel mask L R C LFE Ls Rs) and a 6-channel one with
    /// no layout read as ffmpeg's ebur128 reads them: every channel weighed (the LFE, here the
    /// loudest, left out; the surrounds +1.5 dB), not folded to stereo. Tolerance 0.5 LU.
    @Test(arguments: ["5.1", "6c"])
    func sixChannelWaveReadsAsFfmpegReadsIt(layout: String) throws {
        let dir = TemporaryDirectory("surround")
        let wav = dir.file("s.wav")
        let ffmpeg = try #require(which("ffmpeg"))
        let made = try runProcess(ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "anoisesrc=d=8:c=pink:a=0.2:r=48000:seed=7",
                                           "-af", "pan=\(layout)|c0=c0|c1=0.5*c0|c2=0.7*c0|c3=2*c0|c4=c0|c5=0.3*c0",
                                           "-c:a", "pcm_s16le", wav])
        #expect(made.status == 0, "\(made.stderr)")
        let meter = try runProcess(ffmpeg, ["-nostats", "-i", wav, "-af", "ebur128", "-f", "null", "-"])
        let summary = try #require(meter.stderr.range(of: "Integrated loudness:", options: .backwards).map { meter.stderr[$0.upperBound...] })
        let line = try #require(summary.split(separator: "\n").first { $0.contains("I:") })
        let ffmpegLUFS = try #require(Double(line.replacingOccurrences(of: "I:", with: "").replacingOccurrences(of: "LUFS", with: "")
                                                .trimmingCharacters(in: .whitespaces)), "\(line)")
        let inspect = try runMedrender(["inspect", "--json", wav])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let lufs = try #require((report["loudnessLUFS"] as? NSNumber)?.doubleValue)
        #expect(abs(lufs - ffmpegLUFS) <= 0.5, "medrender \(lufs) LUFS, ffmpeg \(ffmpegLUFS) LUFS")
        #expect(report["format"] as? String == "WAV (extensible)")
        #expect((report["channels"] as? NSNumber)?.intValue == 6)
    }
}
