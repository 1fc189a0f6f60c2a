import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// Speech as an asset: each `say:` line of a session's script synthesized (or found in the cache)
/// before planning, so the plan knows its length as it knows a sound's.
public enum GuideSpeech {
    /// The voice a session's script speaks with: the script's, or the language's default.
    public static func voice(of session: Session) -> GuideVoice {
        let voice = session.guide?.voice ?? GuideVoice(engine: .defaultEngine(for: session.language))
        return voice
    }

    /// Checks the voice against the session's language and what is installed, before any line.
    static func request(for session: Session, text: String, origin: String) throws -> SpeechRequest {
        let voice = voice(of: session)
        let engine = voice.engine.description
        guard let name = voice.name ?? engine.defaultVoice(for: session.language) else {
            throw SpeechError("\(origin): \(voice.engine.rawValue) has no voice for the language '\(session.language.rawValue)'; "
                + "use espeak-ng (voice: espeak-ng) or name a voice", category: .badData)
        }
        if voice.engine == .festival, SpeechSynthesizer.locate("text2wave") != nil {
            let installed = FestivalEngine.installedVoices()
            guard installed.contains(name) else {
                throw SpeechError("\(origin): festival has no voice '\(name)'; installed: \(installed.joined(separator: ", "))"
                    + (name == "cmu_us_slt_arctic_hts" ? " (apt-get install festvox-us-slt-hts)" : ""), category: .badData)
            }
        }
        return SpeechRequest(engine: voice.engine, voice: name, language: session.language, text: text)
    }

    /// The session with every spoken line's audio named, and those sounds, found in the cache or
    /// synthesized now. Lines already synthesized are left as they are.
    public static func synthesize(_ session: Session, origin: String,
                                  synthesizer: SpeechSynthesizer = SpeechSynthesizer()) throws -> (Session, [SoundRef: ResolvedSound]) {
        guard var script = session.guide else { return (session, [:]) }
        var sounds: [SoundRef: ResolvedSound] = [:]
        for (index, line) in script.lines.enumerated() {
            guard case .say(let text) = line.content else { continue }
            let place = line.location.map(\.description) ?? "\(origin): guide line \(index + 1)"
            let request = try request(for: session, text: text, origin: place)
            let path = try synthesizer.audio(for: request, place: place)
            let ref = SoundRef("speech-\(request.key.prefix(16))")
            script.lines[index].speech = ref
            sounds[ref] = ResolvedSound(ref: ref, path: path,
                                        credit: "\(ref.name).wav: spoken by \(request.engine.rawValue) (\(request.voice))")
        }
        var result = session
        result.guide = script
        return (result, sounds)
    }

    /// Prepares a job whose sounds are resolved: its script's speech synthesized and added to its
    /// sounds, and, for a session as long as its script (`minutes: fit`), its length found.
    public static func prepare(_ job: inout RenderJob) throws {
        guard job.session.guide != nil else { return }
        let (session, speech) = try synthesize(job.session, origin: job.origin)
        job.session = session
        job.sounds.sounds.merge(speech) { $1 }
        if session.fitsGuide {
            job.options.length = .duration(try fittedLength(session, sounds: job.sounds, options: job.options, origin: job.origin))
            job.session.defaultLength = job.options.length
        }
    }

    /// The shortest whole-second length the script fits with every elastic pause at its minimum,
    /// with the preset's settle and closing. The lines' lengths are read from their files' headers.
    public static func fittedLength(_ session: Session, sounds: ResolvedSounds, options: RenderOptions, origin: String) throws -> SessionTime {
        var facts: [SoundRef: SoundFacts] = [:]
        for line in session.guide?.lines ?? [] {
            guard let ref = line.sound, let path = sounds.sounds[ref]?.path else { continue }
            let reader = try SoundFileReader(path: path)
            // Two frames over the resampled length, so the render's own lengths always fit.
            facts[ref] = SoundFacts(frameCount: (reader.frameCount * Int64(options.rate) + Int64(reader.rate) - 1) / Int64(reader.rate) + 2)
        }
        var lengths: [SoundRef: SoundFacts] = facts
        for ref in session.soundsUsed where lengths[ref] == nil {
            if let path = sounds.sounds[ref]?.path, let reader = try? SoundFileReader(path: path) {
                lengths[ref] = SoundFacts(frameCount: (reader.frameCount * Int64(options.rate) + Int64(reader.rate) - 1) / Int64(reader.rate) + 2)
            }
        }
        var trial = session
        trial.fitsGuide = false
        // Each trial length is the preset's own, so a line that does not fit is an error, not left out.
        let lineCount = session.guide?.lines.count ?? 0
        var total = session.settle + session.closing + .seconds(1)
        for _ in 0..<200 {
            var o = options
            o.length = .duration(total)
            trial.defaultLength = o.length
            // A plan that fitted the session by leaving a line out is not long enough.
            func whole(_ plan: RenderPlan) -> Bool { plan.guide.lines.count == lineCount }
            do {
                guard whole(try RenderPlan(session: trial, options: o, sounds: lengths)) else {
                    total = total + .seconds(5)
                    continue
                }
                // The steps above may overshoot: come down a second at a time while it still fits.
                while total > .seconds(1) {
                    o.length = .duration(total - .seconds(1))
                    trial.defaultLength = o.length
                    guard let plan = try? RenderPlan(session: trial, options: o, sounds: lengths), whole(plan) else { break }
                    total = total - .seconds(1)
                }
                return total
            } catch {
                switch error {
                case .guideLineDoesNotFit(_, _, _, let missing, _): total = total + max(missing, .seconds(1))
                case .tooShort(_, let settle, let closing, let cycle): total = max(total + .seconds(1), settle + closing + cycle)
                case .schedule(.noCycleFits): total = total + .seconds(1)
                case .guideLinePlacement(let line, _, _, _)
                    where { if case .on? = session.guide?.lines[line].start { true } else { false } }():
                    total = total + .seconds(10)
                default: throw RenderError.plan(error, preset: origin)
                }
                total = SessionTime(milliseconds: (total.milliseconds + 999) / 1000 * 1000)
                if total > RenderPlan.longestSession { break }
            }
        }
        throw RenderError("\(origin): the guided script does not fit in any session up to 24 h; shorten it", category: .badData)
    }
}
