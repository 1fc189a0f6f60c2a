import Foundation
import MedrenderCore

/// A session as the preview shows it: every phase, section, clip, bed, dip and bell of a
/// `RenderPlan`, in seconds from the start of the file.
///
/// Every time is a frame of the plan divided by its rate, so the page and the plot put each phase
/// where the audio has it. The breathing circle's size is a level, 0 (empty) to 1 (full), that each
/// phase eases from `fromLevel` to `toLevel`.
public struct SessionTimeline: Hashable, Sendable {
    /// One breath phase.
    public struct Phase: Hashable, Sendable {
        public var kind: PhaseKind
        /// The cycle, from 1.
        public var cycle: Int
        /// The chained segment, from 0.
        public var segment: Int
        public var startSeconds: Double
        public var endSeconds: Double
        /// The circle's level at the phase's start and end, 0…1.
        public var fromLevel: Double
        public var toLevel: Double
    }

    /// A named stretch: settle, breathing (or each chained segment), closing.
    public struct Section: Hashable, Sendable {
        public var name: String
        public var startSeconds: Double
        public var endSeconds: Double
    }

    /// A clip on the voice or bells layer.
    public struct Clip: Hashable, Sendable {
        public enum Kind: String, Hashable, Sendable {
            case voice, bell, countdown
        }
        public var kind: Kind
        /// The sound's name (`voice/intro`), or `countdown`.
        public var name: String
        public var startSeconds: Double
        public var endSeconds: Double
    }

    /// An ambience bed: it fades in from its start and out to its end; two beds overlap where
    /// they crossfade.
    public struct Bed: Hashable, Sendable {
        public var name: String
        public var startSeconds: Double
        public var endSeconds: Double
        public var fadeInSeconds: Double
        public var fadeOutSeconds: Double
    }

    /// A stretch where the ambience dips under the voice: at full depth from `startSeconds` to
    /// `endSeconds`, reached over `attackSeconds` before and left over `releaseSeconds` after.
    public struct Dip: Hashable, Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        public var attackSeconds: Double
        public var releaseSeconds: Double
    }

    /// The circle's level at the top of the physiological sigh's first inhale, before the top-up.
    public static let sighInhaleLevel = 0.8

    public var title: String
    public var rate: Int
    public var totalFrames: Int64
    public var durationSeconds: Double
    public var cycleCount: Int
    /// How deep the ambience dips under the voice, in dB (negative; 0 when it does not).
    public var duckDecibels: Double
    public var phases: [Phase]
    public var sections: [Section]
    public var clips: [Clip]
    public var beds: [Bed]
    public var dips: [Dip]
    /// The waveform's envelope: the peak (0…1) of each of equal slices of the session, in order;
    /// empty when the audio was not at hand.
    public var envelope: [Float]
    /// The words of the session's language: the labels, the sections' names.
    public var words: Words
    /// The session's language.
    public var language: Language

    /// The timeline of `plan`; `envelope` is the peak of each equal slice of its audio, when known.
    public init(plan: RenderPlan, title: String, envelope: [Float] = []) {
        let rate = Double(plan.rate)
        func seconds(_ frame: Int64) -> Double { Double(frame) / rate }
        self.title = title
        self.rate = plan.rate
        self.totalFrames = plan.totalFrames
        self.durationSeconds = seconds(plan.totalFrames)
        self.cycleCount = plan.schedule.cycleCount
        self.envelope = envelope
        let words = plan.guide.language.words
        self.words = words
        self.language = plan.guide.language

        self.phases = Self.circlePhases(of: plan)

        // The plan's one list of events: settle, then the breathing (or its chained segments,
        // which then stand for it), then closing; and the voice, bells and ticks.
        let events = plan.events
        let segmented = plan.sections.contains { $0.kind == .segment }
        let marks = events.filter { $0.kind == .section && !(segmented && $0.section?.kind == .breathing) }
        self.sections = marks.enumerated().map { index, mark in
            let end = index + 1 < marks.count ? marks[index + 1].frame : plan.totalFrames
            return Section(name: mark.name, startSeconds: seconds(mark.frame), endSeconds: seconds(end))
        }.filter { $0.endSeconds > $0.startSeconds }
        self.clips = events.compactMap { event in
            let kind: Clip.Kind
            switch event.kind {
            case .section: return nil
            case .voice: kind = .voice
            case .bell: kind = .bell
            case .countdown: kind = .countdown
            }
            // A voice clip by what it says (or a recording's short name), never a path or a hash.
            return Clip(kind: kind, name: kind == .voice ? event.label : event.name, startSeconds: seconds(event.frame),
                        endSeconds: seconds(event.endFrame))
        }
        self.beds = plan.beds.map {
            Bed(name: $0.sound.name, startSeconds: seconds($0.startFrame), endSeconds: seconds($0.endFrame),
                fadeInSeconds: seconds($0.fadeInFrames), fadeOutSeconds: seconds($0.fadeOutFrames))
        }
        let ducking = plan.ducking
        self.duckDecibels = ducking.gain > 0 && ducking.gain < 1 ? 20 * log10(Double(ducking.gain)) : 0
        self.dips = plan.beds.isEmpty ? [] : ducking.stretches.map {
            Dip(startSeconds: seconds($0.start), endSeconds: seconds($0.end),
                attackSeconds: seconds(ducking.attackFrames), releaseSeconds: seconds(ducking.releaseFrames))
        }
    }

    /// The plan's phases as the circle shows them: each from the level the one before left to
    /// its own (full after an inhale, a sigh's first inhale short of it; empty after an exhale).
    static func circlePhases(of plan: RenderPlan) -> [Phase] {
        let rate = Double(plan.rate)
        func seconds(_ frame: Int64) -> Double { Double(frame) / rate }
        let scheduled = Array(plan.schedule)
        var phases: [Phase] = []
        phases.reserveCapacity(scheduled.count)
        var level = 0.0
        for (index, phase) in scheduled.enumerated() {
            let from = level
            let to: Double
            switch phase.kind {
            case .inhale:
                var sigh = false
                for next in scheduled[(index + 1)...].prefix(4) where next.cycle == phase.cycle && next.kind == .topUp { sigh = true }
                to = sigh ? Self.sighInhaleLevel : 1
            case .topUp: to = 1
            case .holdIn, .holdOut: to = from
            case .exhale: to = 0
            }
            level = to
            phases.append(Phase(
                kind: phase.kind, cycle: phase.cycle, segment: phase.segment,
                startSeconds: seconds(phase.start.frame(atRate: plan.rate)), endSeconds: seconds(phase.end.frame(atRate: plan.rate)),
                fromLevel: phase.kind == .inhale ? 0 : from, toLevel: to))
        }
        return phases
    }

    /// What the page shows at one instant.
    public struct Moment: Hashable, Sendable {
        /// "Breathe in", "Hold", "Breathe out"…, or what to do outside the breathing.
        public var label: String
        /// The circle's level, 0…1.
        public var level: Double
        /// The phase's progress, 0…1 (0 outside the breathing).
        public var progress: Double
        /// The cycle, from 1 (0 before the first).
        public var cycle: Int
        public var section: String
    }

    /// The raised-cosine ease the circle follows through a phase: 0 at 0, 1 at 1, level at both ends.
    public static func ease(_ progress: Double) -> Double {
        let p = min(1, max(0, progress))
        return (1 - cos(Double.pi * p)) / 2
    }

    /// The index of the phase playing at `seconds`, or nil outside the breathing.
    public func phaseIndex(at seconds: Double) -> Int? {
        var low = 0, high = phases.count - 1, found: Int?
        while low <= high {
            let mid = (low + high) / 2
            if phases[mid].startSeconds <= seconds { found = mid; low = mid + 1 } else { high = mid - 1 }
        }
        guard let found, seconds < phases[found].endSeconds else { return nil }
        return found
    }

    /// What the page shows at `seconds`: the same computation as the page's script.
    public func moment(at seconds: Double) -> Moment {
        let section = sections.last { $0.startSeconds <= seconds }?.name ?? sections.first?.name ?? ""
        guard let index = phaseIndex(at: seconds) else {
            let before = phases.first.map { seconds < $0.startSeconds } ?? true
            return Moment(label: before ? words.settleIn : words.rest, level: 0, progress: 0,
                          cycle: before ? 0 : cycleCount, section: section)
        }
        let phase = phases[index]
        let progress = (seconds - phase.startSeconds) / (phase.endSeconds - phase.startSeconds)
        let level = phase.fromLevel + (phase.toLevel - phase.fromLevel) * Self.ease(progress)
        return Moment(label: words.instruction(phase.kind), level: level, progress: progress, cycle: phase.cycle, section: section)
    }
}
