import Foundation

/// The breath swell: a soft tone or low-passed noise whose level follows the breath, rising through
/// each inhale, holding, and falling through each exhale. It walks the schedule once, in order.
/// The noise is a function of the frame (a counter-based generator) through a low-pass whose
/// memory fades within `warmUpFrames`, so a generator started mid-session (pass 1's parts)
/// renders what one started at 0 does.
final class SwellGenerator {
    let swell: BreathSwell
    let rate: Int
    let channels: Int
    let gain: Float
    private var phases: BreathSchedule.Iterator
    private var current: ScheduledPhase?
    private var currentStart: Int64 = 0
    private var currentEnd: Int64 = 0
    private var levelAtStart: Double = 0
    private var levelAtEnd: Double = 0
    private let noiseSeed: UInt64
    private var lowPass: (Float, Float) = (0, 0)
    /// The next frame the low-pass expects; another frame starts it over, warmed up.
    private var filterFrame: Int64 = 0
    private var noiseCoefficient: Float
    /// Frames the low-pass runs before a frame it did not reach in order: its memory of anything
    /// before them has fallen far below a float's precision.
    let warmUpFrames: Int64

    init(_ swell: BreathSwell, schedule: BreathSchedule, rate: Int, channels: Int, seed: UInt64) {
        self.swell = swell
        self.rate = rate
        self.channels = channels
        self.gain = Float(decibelsToGain(swell.gainDecibels))
        self.phases = schedule.makeIterator()
        self.noiseSeed = seed ^ 0x5E11
        // A one-pole low-pass near the pitch gives breath-like noise.
        self.noiseCoefficient = Float(1 - exp(-2 * Double.pi * swell.pitchHertz * 2 / Double(rate)))
        // (1 − c)^n < 2^-64 for both poles, with room to spare.
        self.warmUpFrames = Int64((64 * log(2) / -log(1 - Double(noiseCoefficient))).rounded(.up)) * 2
        advance()
    }

    /// The level at the end of a phase of this kind, given the level it starts from.
    private static func target(_ kind: PhaseKind, from level: Double) -> Double {
        switch kind {
        case .inhale, .topUp: return 1
        case .holdIn, .holdOut: return level
        case .exhale: return 0
        }
    }

    private func advance() {
        levelAtStart = current == nil ? 0 : levelAtEnd
        current = phases.next()
        guard let phase = current else { return }
        currentStart = phase.start.frame(atRate: rate)
        currentEnd = phase.end.frame(atRate: rate)
        levelAtEnd = Self.target(phase.kind, from: levelAtStart)
    }

    /// White noise at `frame`: the frame-th value of the seeded SplitMix64 stream, −1…1.
    private func white(_ frame: Int64) -> Float {
        var g = SeededGenerator(seed: noiseSeed &+ UInt64(bitPattern: frame) &* 0x9E37_79B9_7F4A_7C15)
        return g.nextUnit() * 2 - 1
    }

    /// The low-passed noise at `frame`, the filter run up to it (warmed up when started elsewhere).
    private func noise(at frame: Int64) -> Float {
        if frame != filterFrame {
            lowPass = (0, 0)
            filterFrame = max(0, frame - warmUpFrames)
        }
        while filterFrame <= frame {
            let w = white(filterFrame)
            lowPass.0 += noiseCoefficient * (w - lowPass.0)
            lowPass.1 += noiseCoefficient * (lowPass.0 - lowPass.1)
            filterFrame += 1
        }
        return lowPass.1 * 4
    }

    func render(into out: UnsafeMutablePointer<Float>, blockStart: Int64, frameCount: Int, totalFrames: Int64) {
        for f in 0..<frameCount {
            let frame = blockStart + Int64(f)
            while current != nil, frame >= currentEnd { advance() }
            guard current != nil, frame >= currentStart else { continue }
            let x = Double(frame - currentStart) / Double(max(1, currentEnd - currentStart))
            let level = levelAtStart + (levelAtEnd - levelAtStart) * swell.curve.value(at: x)
            let t = Double(frame) / Double(rate)
            let value: Float
            switch swell.kind {
            case .tone:
                value = Float(sin(2 * .pi * swell.pitchHertz * t) + 0.35 * sin(2 * .pi * swell.pitchHertz * 1.5 * t)) / 1.35
            case .noise:
                value = noise(at: frame)
            }
            let v = value * gain * Float(level)
            for c in 0..<channels { out[f * channels + c] += v }
        }
    }
}
