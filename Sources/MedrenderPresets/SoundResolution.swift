import Foundation
import MedrenderCore

/// A sound a session names, found before the render: where its bytes are and whose they are.
public struct ResolvedSound: Sendable, Hashable {
    /// The sound as the preset names it.
    public var ref: SoundRef
    /// The file that holds it.
    public var path: String
    /// Its credit as the output's tags carry it: `rain.ogg: Author, License`.
    public var credit: String
    /// Whether the recording already loops at its own length (`loop: natural` in `CREDITS.yaml`).
    public var loopsNaturally: Bool = false
    /// Whether the file is one medrender keeps (a spoken line in the speech cache), beside which
    /// its copy resampled to a render's rate is kept too, and read instead of resampling again.
    public var keepsRates: Bool = false

    public init(ref: SoundRef, path: String, credit: String, loopsNaturally: Bool = false, keepsRates: Bool = false) {
        self.ref = ref
        self.path = path
        self.credit = credit
        self.loopsNaturally = loopsNaturally
        self.keepsRates = keepsRates
    }
}

/// Every sound a render needs, each found and credited, with what had to be worked around. A
/// render reads sounds only from here: it never looks a sound up or reads `CREDITS.yaml` itself.
public struct ResolvedSounds: Sendable, Hashable {
    public var sounds: [SoundRef: ResolvedSound]
    /// Replacements made and credits that could not be given, as warnings for the report.
    public var warnings: [String]

    public init(sounds: [SoundRef: ResolvedSound] = [:], warnings: [String] = []) {
        self.sounds = sounds
        self.warnings = warnings
    }

    /// The credits, in the order `refs` names the sounds.
    public func credits(for refs: [SoundRef]) -> [String] {
        refs.compactMap { sounds[$0]?.credit }
    }
}

/// A sound a preset names that the library cannot find, with the others missing beside it.
public struct MissingSoundsError: DiagnosedError, Hashable {
    /// The preset, for messages.
    public var preset: String
    public var missing: [SoundRef]
    /// What `Sounds/` offers.
    public var offers: [String]

    public var category: ErrorCategory { .missingInput }

    public var description: String {
        func guess(_ ref: SoundRef) -> String {
            didYouMean(ref.name, among: offers).map { " (did you mean '\($0)'?)" } ?? ""
        }
        let subject = missing.count == 1
            ? "the sound '\(missing[0])' was not found\(guess(missing[0]))"
            : "the sounds " + missing.map { "'\($0)'\(guess($0))" }.joined(separator: ", ") + " were not found"
        return "\(preset): \(subject); Sounds/ offers: \(offers.isEmpty ? "nothing" : offers.joined(separator: ", "))"
    }
}

extension PresetLibrary {
    /// Finds and credits each of `refs` for the preset at `presetFile` (a path relative to it, or
    /// a name in `Sounds/`). With `stockFallback`, a missing sound is replaced by the bundled one
    /// of its role, with a warning. Every sound missing is reported in one error.
    public func resolveSounds(_ refs: [SoundRef], for session: Session, presetFile: String,
                              stockFallback: Bool = false) throws(MissingSoundsError) -> ResolvedSounds {
        var resolved = ResolvedSounds()
        var missing: [SoundRef] = []
        for ref in refs {
            var found = soundPath(ref, presetFile: presetFile)
            var replaced = false
            if found == nil, stockFallback, let (role, stock) = session.stockReplacement(for: ref),
                let stockPath = soundPath(stock, presetFile: nil)
            {
                found = stockPath
                replaced = true
                resolved.warnings.append("\(presetFile): the \(role.rawValue) sound '\(ref)' was not found; using the bundled '\(stock)' instead")
            }
            guard let path = found else {
                missing.append(ref)
                continue
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            let credit: String
            // The preset's own credit for the sound, unless the stock one stands in for it.
            let given = replaced ? nil : session.soundCredits[ref.name]
            switch given.map({ Credit.listed(author: $0.author, license: $0.license) }) ?? self.credit(forSoundAt: path) {
            case .listed(let author, let license):
                credit = "\(name): \(author), \(license)"
            case .outsideLibrary:
                credit = "\(name): credits not known"
            case .unknown(let why):
                credit = "\(name): credits not known"
                resolved.warnings.append("\(why); the output's tags say 'credits not known' for \(name): add its author and license there")
            }
            resolved.sounds[ref] = ResolvedSound(ref: ref, path: path, credit: credit, loopsNaturally: loopsNaturally(soundAt: path))
        }
        guard missing.isEmpty else {
            throw MissingSoundsError(preset: presetFile, missing: missing, offers: soundNames())
        }
        return resolved
    }
}
