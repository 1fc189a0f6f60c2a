import Foundation
import Medrender
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

/// An OGG file is measured as it decodes while it is written (its packets decoded on a thread of
/// their own): the figures must be those of the file read back. At 44.1 kHz and over the check
/// decodes the packets that can hold the peaks, which are exact, and weighs what the codec does to
/// the loudness on a sample, which gives it within 0.3 LU (`SelectiveDecodeTests` holds both over
/// the stock library).
@Suite struct LiveDecodeTests {
    @Test(arguments: [(16000, 1), (48000, 2)])
    func anOGGsReportGivesTheFiguresOfTheFileReadBack(rate: Int, channels: Int) throws {
        let dir = TemporaryDirectory("live")
        let yaml = try String(contentsOfFile: PackagePaths.root + "/Presets/box-breath.yaml", encoding: .utf8)
        let out = dir.file("s.ogg")
        var req = try request(yaml, minutes: 1, rate: rate, format: .ogg(quality: 4), output: out, dir: dir)
        req.options.channels = channels
        let report = try Renderer.render(req)
        let (fileRate, fileChannels, samples) = try readSound(out)
        #expect(fileRate == rate && fileChannels == channels)
        #expect(samples.count == 60 * rate * channels)
        let meter = try LoudnessMeter(channels: channels, rate: rate)
        let peak = TruePeakMeter(channels: channels, rate: rate)
        samples.withUnsafeBufferPointer { peak.add($0.baseAddress!, frameCount: samples.count / channels) }
        try samples.withUnsafeBufferPointer { try meter.add($0.baseAddress!, frameCount: samples.count / channels) }
        let loudness = try #require(report.loudnessLUFS)
        let truePeak = try #require(report.truePeakDBTP)
        let tolerance = rate >= 44100 ? 0.3 : 0.01
        #expect(abs(loudness - (try meter.integratedLoudness())) < tolerance, "live \(loudness) LUFS")
        #expect(abs(truePeak - peak.peakDecibels) < 0.01, "live \(truePeak) dBTP, read back \(peak.peakDecibels)")
        let samplePeak = samples.reduce(Float(0)) { max($0, abs($1)) }
        #expect(abs((report.samplePeakDBFS ?? 0) - 20 * log10(Double(samplePeak))) < 0.01)
    }
}
