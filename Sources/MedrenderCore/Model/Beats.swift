import Foundation

/// Beats: two tones whose difference the listener hears as a slow beat, or one tone pulsed at the
/// beat rate. The beat, the carrier and the gain follow a timeline across the session, or the beat
/// follows the breath itself (`follow: breath`).
public struct Beats: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// A tone per ear, carrier ∓ beat/2 on left and right: heard on headphones only, and
        /// only in stereo.
        case binaural
        /// One carrier pulsed at the beat rate, the pulses' edges raised-cosine shaped.
        case isochronic
        /// The two tones of a binaural beat summed in both ears.
        case monaural
    }

    public var kind: Kind
    /// The timeline; the first point holds from the start of the file, the last to its end.
    /// The first point is at the start and carries every value.
    public var points: [BeatPoint]
    /// The beat follows the breath between two frequencies, when set (the points then give the
    /// carrier and the gain only).
    public var follow: BreathBeat?

    public init(kind: Kind = .binaural, points: [BeatPoint] = [BeatPoint(at: .time(.zero))], follow: BreathBeat? = nil) {
        self.kind = kind
        self.points = points
        self.follow = follow
    }

    /// The least and most beat frequency, in hertz.
    public static let beatRange = 0.5...40.0
    /// The least and most carrier (and tone in either ear), in hertz.
    public static let carrierRange = 40.0...1500.0
    /// Beat frequency in hertz, 0.5…40, default 10.
    public static let defaultBeatHertz = 10.0
    /// Carrier in hertz, 40…1,500, default 200.
    public static let defaultCarrierHertz = 200.0
    /// Gain in decibels, −60…0, default −30.
    public static let defaultGainDecibels = -30.0

    /// Why a beat frequency and carrier cannot be played together, or nil when they can: each
    /// ear's tone, carrier ∓ beat/2, must stay within `carrierRange`.
    public static func violation(beatHertz: Double, carrierHertz: Double) -> String? {
        let low = carrierHertz - beatHertz / 2, high = carrierHertz + beatHertz / 2
        if beatHertz >= carrierHertz || low < carrierRange.lowerBound {
            let least = carrierRange.lowerBound + beatHertz / 2
            return "a \(number(beatHertz)) Hz beat on a \(number(carrierHertz)) Hz carrier puts the lower tone at \(number(low)) Hz, "
                + "below \(number(carrierRange.lowerBound)) Hz; use a carrier of at least \(number(least)) Hz or a slower beat"
        }
        if high > carrierRange.upperBound {
            let most = carrierRange.upperBound - beatHertz / 2
            return "a \(number(beatHertz)) Hz beat on a \(number(carrierHertz)) Hz carrier puts the upper tone at \(number(high)) Hz, "
                + "above \(number(carrierRange.upperBound)) Hz; use a carrier of at most \(number(most)) Hz or a slower beat"
        }
        return nil
    }

    /// The share of a beat's cycle each edge of an isochronic pulse takes: the pulse rises over an
    /// eighth of the cycle, holds, falls over an eighth, and rests for the second half.
    public static let isochronicEdge = 0.125

    /// The level of an isochronic pulse at `p` cycles into its beat (0…1): raised-cosine edges, so
    /// neither a click nor a splatter.
    public static func isochronicPulse(_ p: Double) -> Double {
        let e = isochronicEdge
        if p < e { return 0.5 - 0.5 * cos(.pi * p / e) }
        if p < 0.5 - e { return 1 }
        if p < 0.5 { return 0.5 - 0.5 * cos(.pi * (0.5 - p) / e) }
        return 0
    }

    private static func number(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String((v * 1000).rounded() / 1000)
    }
}

/// One point of a beats timeline: the values reached at `at`, over a slide shaped by `curve` from
/// the point before. A value not given keeps the one before (resolved when decoded).
public struct BeatPoint: Hashable, Sendable {
    /// Where a point sits on the session's clock.
    public enum Anchor: Hashable, Sendable {
        /// A time from the start of the file.
        case time(SessionTime)
        /// The first breath.
        case breathing
        /// Segment N's first breath (1-based), of a chained session.
        case segment(Int)
        /// The end of the last breath: the start of the closing.
        case closing
        /// The end of the file.
        case end
    }

    public var at: Anchor
    /// Beat frequency in hertz, 0.5…40.
    public var beatHertz: Double
    /// Carrier in hertz, 40…1,500.
    public var carrierHertz: Double
    /// Gain in decibels, −60…0.
    public var gainDecibels: Double
    /// The shape of the slide from the point before, default linear.
    public var curve: FadeCurve
    /// Where the point is written, for errors.
    public var location: ScriptLocation?

    public init(at: Anchor, beatHertz: Double = Beats.defaultBeatHertz, carrierHertz: Double = Beats.defaultCarrierHertz,
                gainDecibels: Double = Beats.defaultGainDecibels, curve: FadeCurve = .linear, location: ScriptLocation? = nil) {
        self.at = at
        self.beatHertz = beatHertz
        self.carrierHertz = carrierHertz
        self.gainDecibels = gainDecibels
        self.curve = curve
        self.location = location
    }
}

/// A beat that follows the breath: it rises to `highHertz` through each inhale, holds, and falls to
/// `lowHertz` through each exhale, eased like the preview's breathing circle.
public struct BreathBeat: Hashable, Sendable {
    /// The beat at the bottom of the breath (and before and after the breathing), in hertz, 0.5…40.
    public var lowHertz: Double
    /// The beat at the top of the breath, in hertz, 0.5…40, more than `lowHertz`.
    public var highHertz: Double
    /// The ease through a phase, default half-cosine (the breathing circle's).
    public var curve: FadeCurve
    public init(lowHertz: Double, highHertz: Double, curve: FadeCurve = .halfCosine) {
        self.lowHertz = lowHertz
        self.highHertz = highHertz
        self.curve = curve
    }
}
