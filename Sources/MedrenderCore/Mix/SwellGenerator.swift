import Foundation

/// The breath swell: a soft tone or low-passed noise whose level follows the breath, rising through
/// each inhale, holding, and falling through each exhale. It walks the schedule once, in order.
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
    private var generator: SeededGenerator
    private var lowPass: (Float, Float) = (0, 0)
    private var noiseCoefficient: Float

    init(_ swell: BreathSwell, schedule: BreathSchedule, rate: Int, channels: Int, seed: UInt64) {
        self.swell = swell
        self.rate = rate
        self.channels = channels
        self.gain = Float(decibelsToGain(swell.gainDecibels))
        self.phases = schedule.makeIterator()
        self.generator = SeededGenerator(seed: seed ^ 0x5E11)
        // A one-pole low-pass near the pitch gives breath-like noise.
        self.noiseCoefficient = Float(1 - exp(-2 * Double.pi * swell.pitchHertz * 2 / Double(rate)))
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
                let white = generator.nextUnit() * 2 - 1
                lowPass.0 += noiseCoefficient * (white - lowPass.0)
                lowPass.1 += noiseCoefficient * (lowPass.0 - lowPass.1)
                value = lowPass.1 * 4
            }
            let v = value * gain * Float(level)
            for c in 0..<channels { out[f * channels + c] += v * (channels == 2 ? 0.7071 : 1) }
        }
    }
}
