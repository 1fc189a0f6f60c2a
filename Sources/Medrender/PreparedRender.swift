import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// A render is three stages:
///
/// 1. **prepare** (`RenderJob.prepare()`, `Renderer.prepare(_:)`): the session's sounds decoded and
///    conditioned at the output rate, and the session planned with their lengths, once. What needs
///    only the plan (a cue sheet, a build's preview pages, a plot without its waveform, a check)
///    takes `RenderJob.plan()`: the sounds decoded for their facts, none of their samples kept.
/// 2. **the master chain** (`MasterChain`): mix → fades → gain → limiter, the one chain that pass
///    1 measures (up to the gain), pass 2 writes and every stem follows.
/// 3. **write** (`RenderJob.run(_:to:progress:)`): pass 1, the limited pass for an output written
///    once (`LimitedLoudnessPass`), pass 2 with the retry policy of a lossy format written ahead
///    (`LossyRetryPolicy`), the stems, and the outputs put in place together (`OutputSet`).
///
/// A `PreparedRender` is the first stage's result: it renders as many times, to as many places, as
/// a caller wants, without decoding or planning again.
public struct PreparedRender: Sendable {
    /// What was asked: the session, its sounds, the options and the format.
    public let job: RenderJob
    /// The session on one clock, with the sounds' lengths.
    public let plan: RenderPlan
    /// Every sound the plan plays, decoded at its rate and held in 16 bits (a bed decoded straight
    /// into them), with the tones and loops baked.
    public let assets: MixAssets
    /// The tags of the output: the session's metadata (or its name), the sounds' credits, the sections.
    public let tags: OutputTags

    /// What the render has to say before mixing: replaced sounds, how the session was fitted,
    /// what the language's tag was read as (`pt` as pt-BR).
    public var warnings: [String] {
        var list = job.sounds.warnings + plan.notes + (job.session.language.note.map { [$0] } ?? [])
        if tags.cover != nil, case .wav = job.format {
            list.append("WAV holds no cover art; the cover is left out (MP3, FLAC, OGG and Opus hold one)")
        }
        return list
    }
}

/// A sound as a render keeps it once loaded: a bed's decoded into 16 bits, any other rounded as
/// it plays; for a plan alone, its facts.
private enum LoadedSound: Sendable {
    case bed(QuantizedAsset, SoundFacts)
    case played(QuantizedAsset, SoundFacts)
    case facts(SoundFacts)
}

/// What a render holds of its sounds while it is planned: the samples of each (none for a plan
/// alone) and the facts the plan takes.
private struct LoadedSounds {
    /// Whether the samples are kept (and a voice's peaks held), or only the facts.
    let keepsSamples: Bool
    var beds: [SoundRef: QuantizedAsset] = [:]
    var played: [SoundRef: QuantizedAsset] = [:]
    var facts: [SoundRef: SoundFacts] = [:]
}

extension RenderJob {
    /// Stage 1: decodes every sound the session plays (from the cache when it holds them) and
    /// plans the session with their lengths.
    public func prepare() throws -> PreparedRender {
        var sounds = LoadedSounds(keepsSamples: true)
        let plan = try plan(loading: &sounds)
        var mix = MixAssets(sounds: [:], beds: sounds.beds, played: sounds.played, facts: sounds.facts)
        mix.pages = ProcessMemory.pageRelease
        sounds = LoadedSounds(keepsSamples: true)
        mix.bake(for: plan)
        return PreparedRender(job: self, plan: plan, assets: mix, tags: try outputTags(plan: plan))
    }

    /// Everything a render checks before mixing: every sound decoded (from the cache when it
    /// holds them), the plan made with their lengths (clips and prompts that fit), the tags and
    /// their cover read. Returns the plan, as the cue sheet gives it, without what only a mix
    /// needs: no sample is kept or rounded, no voice's peaks held and no loop or tone baked.
    public func plan() throws -> RenderPlan {
        var sounds = LoadedSounds(keepsSamples: false)
        let plan = try plan(loading: &sounds)
        _ = try outputTags(plan: plan)
        return plan
    }

    /// Loads the sounds the session names into `sounds` and plans the session with their facts.
    private func plan(loading sounds: inout LoadedSounds) throws -> RenderPlan {
        // What the session names for these layers and this length, found before the render
        // (`RenderRequest.job`): decoded first, so the session is planned once, with the lengths.
        let fitted = fitted
        try load(RenderPlan.soundsNamed(fitted).filter { self.sounds.sounds[$0] != nil }, into: &sounds)
        do {
            var plan = try RenderPlan(fitted: fitted, sounds: sounds.facts)
            // Should the plan play a sound not named so (none does), it is loaded and the session
            // planned again with its length, rather than mixed without it.
            for _ in 0..<2 {
                let missing = plan.soundsUsed.filter { sounds.facts[$0] == nil }
                if missing.isEmpty { break }
                try load(missing, into: &sounds)
                plan = try RenderPlan(fitted: fitted, sounds: sounds.facts)
            }
            return plan
        } catch let error as PlanError {
            throw RenderError.plan(error, preset: origin)
        }
    }

    /// Decodes `refs` (from the cache when it holds them), with their facts, into `loaded`: when
    /// it keeps samples, a bed's sound into `beds`, decoded straight into 16 bits
    /// (`MixAssets.beds`), and every other sound into `played`, rounded to 16 bits as soon as it
    /// is loaded, as it plays (`MixAssets.played`).
    private func load(_ refs: [SoundRef], into loaded: inout LoadedSounds) throws {
        var wanted: [ResolvedSound] = []
        for ref in refs {
            guard let sound = sounds.sounds[ref] else {
                throw RenderError("\(origin): the sound '\(ref)' was not resolved before the render; resolve the session's sounds first",
                                  category: .internal)
            }
            wanted.append(sound)
        }
        // A render with no shared cache keeps none (a cache of no bytes): a sound is held once,
        // as `keep` makes it, and a bed that plays only as a bed is baked in place, without a
        // second copy.
        let bedSounds = Set(session.ambience.map(\.sound) + session.segments.compactMap { $0.ambience?.sound })
        let channels = options.channels, rate = options.rate, keepsSamples = loaded.keepsSamples
        let voice = session.voiceSounds
        let crest = VoicePeaks.crest(targetLUFS: session.master.loudnessLUFS, ceilingDBTP: session.master.truePeakDBTP)
        let kept = try SoundLoader.load(wanted, rate: rate, cache: soundCache ?? SoundCache(maximumBytes: 0),
                                        parallel: threads > 1, held: { bedSounds.contains($0.ref) }) { sound, decoded, loudness in
            let facts = SoundFacts(frameCount: Int64(decoded.frameCount), loudnessLUFS: loudness.forOutput(channels: channels),
                                   loopsNaturally: sound.loopsNaturally, loudestLUFS: loudness.loudestForOutput(channels: channels))
            guard keepsSamples else { return LoadedSound.facts(facts) }
            switch decoded {
            case .held(let asset): return LoadedSound.bed(asset, facts)
            case .floats(let asset) where voice.contains(sound.ref):
                guard let level = loudness.stereo else { fallthrough }
                let held = VoicePeaks.held(asset.samples, channels: asset.channels, rate: rate, loudnessLUFS: level, crest: crest)
                return .played(QuantizedAsset(quantizing: AudioAsset(channels: asset.channels, samples: held)), facts)
            case .floats(let asset): return .played(QuantizedAsset(quantizing: asset), facts)
            }
        }
        for (sound, one) in zip(wanted, kept) {
            switch one {
            case .bed(let asset, let facts):
                loaded.beds[sound.ref] = asset
                loaded.facts[sound.ref] = facts
            case .played(let asset, let facts):
                loaded.played[sound.ref] = asset
                loaded.facts[sound.ref] = facts
            case .facts(let facts):
                loaded.facts[sound.ref] = facts
            }
        }
    }

    /// Refuses outputs that are files the render reads: the preset, or one of its sounds.
    func checkOutputs(_ outputs: [String]) throws {
        var writes: [String: String] = [:]
        for path in outputs { writes[FilePaths.resolved(path)] = path }
        if let output = writes[FilePaths.resolved(origin)] {
            throw RenderError("\(origin): the preset is the output file \(output); write the session elsewhere", category: .usage)
        }
        for sound in sounds.sounds.values.sorted(by: { $0.ref.name < $1.ref.name }) {
            if let output = writes[FilePaths.resolved(sound.path)] {
                throw RenderError("\(origin): the sound '\(sound.ref)' is the output file \(output); write the session elsewhere",
                                  category: .usage)
            }
        }
    }

    /// The tags of the output: the session's metadata (or its name), the sounds' credits, the sections.
    func outputTags(plan: RenderPlan) throws(IOError) -> OutputTags {
        let m = session.metadata
        var comment = m.comment ?? session.description
        // Binaural beats are heard only on headphones: the file says so where a player shows it.
        if plan.beats?.kind == .binaural {
            comment = comment.isEmpty ? session.language.words.headphonesNote : comment + " " + session.language.words.headphonesNote
        }
        return OutputTags(title: m.title ?? session.name, artist: m.artist, album: m.album, date: m.date,
                          comment: comment, credits: sounds.credits(for: plan.soundsUsed),
                          chapters: plan.sections.map { section in
                              // Named in the session's language (Settle → Ankommen); a segment's own name as written.
                              var named = section
                              named.name = session.language.words.section(section)
                              return named
                          },
                          cover: try m.cover.map { (path) throws(IOError) in try CoverArt(path: path) })
    }
}
