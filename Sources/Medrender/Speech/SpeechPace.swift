import Foundation
import MedrenderCore

/// How an engine is made to speak at a pace: its own pace, measured, and how much of a line's
/// length its scale stretches. A line is spoken at the scale that gives the pace on average, then
/// measured (its words over its length, edge silence trimmed) and, when it is off by more than
/// `tolerance`, spoken again at the scale that this engine's model says brings it there: lines of
/// short words run fast at any one scale, so one scale for a script would miss by up to a fifth.
public struct EnginePacing: Sendable, Hashable {
    /// Words a minute at scale 1, on ten meditation sentences.
    public var naturalWordsPerMinute: Double
    /// The part of a line's length that its scale does not stretch (Piper keeps a quarter).
    public var fixed: Double

    /// Changes whenever the calibration changes, so lines spoken at a pace are spoken again.
    public static let version = "1"

    /// How far a line's measured pace may be from the asked one before it is spoken again.
    public static let tolerance = 0.04
    /// The scales an engine is given.
    static let scales = 0.25...6.0

    /// The scale that speaks `pace` words a minute on average.
    public func scale(for pace: Int) -> Double {
        clamped(((naturalWordsPerMinute / Double(pace)) - fixed) / (1 - fixed))
    }

    /// The scale that brings a line that lasted `seconds` at `scale` to `target` seconds: its
    /// length is `fixed + (1 − fixed) × scale` times its length at scale 1.
    public func corrected(_ scale: Double, measured seconds: Double, target: Double) -> Double {
        clamped(((target / seconds) * (fixed + (1 - fixed) * scale) - fixed) / (1 - fixed))
    }

    private func clamped(_ scale: Double) -> Double { min(max(scale, Self.scales.lowerBound), Self.scales.upperBound) }

    /// A line's length in seconds at `pace` words a minute.
    public static func seconds(of text: String, at pace: Int) -> Double {
        Double(SpokenPhrases.wordCount(text)) * 60 / Double(pace)
    }

    /// How far `seconds` is from `target`, as a fraction of it.
    public static func miss(_ seconds: Double, target: Double) -> Double { abs(seconds / target - 1) }

    /// `scale` on a grid of steps of 10 % (each scale within 5 % of its step, which moves a
    /// line's length by under 4 %), so that the lines a program that speaks many lines at one
    /// scale (Piper) speaks again go in few runs.
    public static func step(_ scale: Double) -> Double {
        let step = log(1.1)
        return exp((log(scale) / step).rounded() * step)
    }

    /// A scale as an engine's argument takes it.
    static func text(_ scale: Double) -> String { String(format: "%.3f", scale) }
}
