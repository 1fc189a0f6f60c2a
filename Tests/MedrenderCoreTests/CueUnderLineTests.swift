import Foundation
import MedrenderCore
import Testing

/// A cue and the guided script's lines, measured on the cues as mixed: a cue that starts before a
/// line ("follow the bowl") keeps its onset and dips from the line on; one that starts under a line
/// dips from its onset; either way the words are well clear of it; and 0 dB dips nothing.
@Suite struct CueUnderLineTests {
    static let rate = 8000
    static let second = Int64(rate)

    /// 6-0-6-0 with a bowl on each breath, in one minute. "Follow the bowl…" starts 3 s after the
    /// first inhale's bowl (at 5 s), which rings 4 s, into it; "Now breathe in." starts at 16.5 s,
    /// half a second before the second inhale's bowl.
    static func session(cueUnderLine decibels: Double = VoiceSettings.guidedCueUnderPromptDecibels) -> Session {
        var session = simpleSession(BreathPattern(milliseconds: 6000, 0, 6000, 0))
        session.cues[.inhale] = CueSound(source: .synth(.bowl), pitchHertz: 293.66, gainDecibels: -12)
        session.cues[.exhale] = CueSound(source: .synth(.bowl), pitchHertz: 220, gainDecibels: -14)
        session.voice.cueUnderPromptDecibels = decibels
        var follow = GuideLine(content: .say("Follow the bowl as it fades."), start: .after(.seconds(3)), during: .breathing)
        follow.speech = SoundRef("follow")
        var breathe = GuideLine(content: .say("Now breathe in."), start: .after(SessionTime(milliseconds: 6500)))
        breathe.speech = SoundRef("breathe")
        session.guide = GuideScript(lines: [follow, breathe])
        return session
    }

    /// Each line's audio: 2 s of a 440-Hz tone at half scale.
    static var sounds: [SoundRef: AudioAsset] {
        let tone = AudioAsset(channels: 1, samples: (0..<2 * rate).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) })
        return [SoundRef("follow"): tone, SoundRef("breathe"): tone]
    }

    static func plan(_ session: Session, layers: Set<Layer>) throws -> RenderPlan {
        try RenderPlan(session: session, options: RenderOptions(rate: rate, channels: 1, length: .duration(.seconds(60)), layers: layers),
                       sounds: sounds.mapValues { SoundFacts(frameCount: Int64($0.frameCount)) })
    }

    /// The level of `frames` in dB (full scale 0).
    static func level(_ samples: [Float], _ frames: Range<Int64>) -> Double {
        let sum = frames.reduce(0.0) { $0 + Double(samples[Int($1)]) * Double(samples[Int($1)]) }
        return 10 * log10(sum / Double(max(1, frames.count)) + 1e-20)
    }

    /// The loudest 100 ms of `frames` (50-ms steps).
    static func loudest(_ samples: [Float], _ frames: Range<Int64>) -> Double {
        stride(from: frames.lowerBound, to: max(frames.lowerBound + 1, frames.upperBound - second / 10), by: Int(second / 20))
            .map { level(samples, $0..<min(frames.upperBound, $0 + second / 10)) }.max() ?? -200
    }

    @Test func aCueBeforeALineKeepsItsOnsetAndEveryLineStaysClearOfTheCues() throws {
        let plan = try Self.plan(Self.session(), layers: [.cues])
        let cues = renderMix(plan)
        let undipped = renderMix(try Self.plan(Self.session(cueUnderLine: 0), layers: [.cues]))
        let voice = renderMix(try Self.plan(Self.session(), layers: [.voice]), sounds: Self.sounds)
        let lines = plan.guide.lines
        #expect(lines.map(\.startFrame) == [8 * Self.second, 16 * Self.second + Self.second / 2])
        var before = 0, under = 0
        for phase in plan.schedule {
            let event = try #require(plan.cueEvent(for: phase))
            let start = event.startFrame, onset = start..<(start + Self.second / 4)
            guard let line = lines.first(where: { $0.startFrame < start + event.maximumFrames && start < $0.endFrame }) else {
                // Clear of every line: as it is.
                #expect(cues[Int(start)..<Int(start + event.maximumFrames)] == undipped[Int(start)..<Int(start + event.maximumFrames)])
                continue
            }
            let drop = Self.level(undipped, onset) - Self.level(cues, onset)
            if line.startFrame > start {
                // Before the line: the onset as the cue undipped (within 1 dB), sample for sample
                // until the attack before the line.
                before += 1
                #expect(abs(drop) <= 1, "the cue at \(start) drops \(drop) dB at its onset, \(line.startFrame - start) frames before its line")
                let attack = line.startFrame - plan.bellDucking.attackFrames
                #expect(cues[Int(start)..<Int(attack)] == undipped[Int(start)..<Int(attack)])
                // From the line on, down by the whole dip.
                let fromLine = line.startFrame..<min(line.endFrame, start + event.maximumFrames)
                #expect(abs(Self.level(undipped, fromLine) - Self.level(cues, fromLine) + VoiceSettings.guidedCueUnderPromptDecibels) < 0.5)
            } else {
                // Under the line from its onset: down by the whole dip, as before.
                under += 1
                #expect(abs(drop + VoiceSettings.guidedCueUnderPromptDecibels) < 0.5, "the cue at \(start) under a line drops \(drop) dB")
            }
        }
        #expect(before == 1 && under == 1)
        // Every line's words are at least 18 dB over the loudest 100 ms of the cues under them.
        for line in lines {
            let words = Self.level(voice, line.startFrame..<line.endFrame)
            let margin = words - Self.loudest(cues, line.startFrame..<line.endFrame)
            #expect(margin >= 18, "line \(line.index): \(margin) dB over the cues")
        }
        // Undipped, the bowl that starts under the second line comes within 18 dB of its words.
        let second = lines[1].startFrame..<lines[1].endFrame
        #expect(Self.level(voice, second) - Self.loudest(undipped, second) < 18)
    }

    @Test func zeroDecibelsDipsNoCue() throws {
        let session = Self.session(cueUnderLine: 0)
        let plan = try Self.plan(session, layers: [.cues, .voice])
        for phase in plan.schedule {
            let event = try #require(plan.cueEvent(for: phase))
            #expect(event.dip == nil)
            // The cue's own gain, as the plan levels it under the voice (`CuePlan.levelled`).
            let cue = try #require(plan.cues.first { $0.kind == phase.kind })
            #expect(cue.sound.gainDecibels <= session.cues[phase.kind]!.gainDecibels)
            #expect(event.gain == Float(decibelsToGain(cue.sound.gainDecibels)))
        }
    }
}
