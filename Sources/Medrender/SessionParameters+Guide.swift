import MedrenderCore
import MedrenderPresets

extension SessionParameters {
    /// Applies `--voice ENGINE[:NAME]`, `--language` and `--minutes fit` to a loaded session.
    public func applyGuide(to session: inout Session) throws(RenderError) {
        if let language {
            guard let value = Language(rawValue: language) else {
                throw Self.usage("--language \(language) is not one medrender has words for; choose one of: "
                    + Language.allCases.map(\.rawValue).joined(separator: ", "))
            }
            session.language = value
        }
        if let voice {
            do {
                let parsed = try PresetDecoder.guideVoice(voice)
                if session.guide != nil {
                    session.guide!.voice = parsed
                    session.guide!.voiceLocation = nil
                }
            } catch {
                throw Self.usage("--voice \(voice): \(error.message)")
            }
        }
        if fitToGuide { session.fitsGuide = true }
        if session.fitsGuide, session.guide == nil, session.voice.track == nil {
            throw RenderError("\(preset): '--minutes fit' sizes a session to its guided script or its voice track, and this preset has neither 'guide:' nor 'voice.track'; "
                + "give --minutes M", category: .usage)
        }
    }
}
