import MedrenderCore
import MedrenderPresets

extension SessionParameters {
    /// Applies `--voice ENGINE[:NAME]`, `--language` and `--minutes fit` to a loaded session.
    public func applyGuide(to session: inout Session) throws(ParameterError) {
        if let language {
            guard let value = Language(rawValue: language) else {
                throw ParameterError("language", value: language, "is not one medrender has words for; choose one of: "
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
                throw ParameterError("voice", value: voice, ": \(error.message)")
            }
        }
        if fitToGuide { session.fitsGuide = true }
        if session.fitsGuide, session.guide == nil, session.voice.track == nil {
            throw ParameterError("minutes", value: "fit", "sizes a session to its guided script or its voice track, and the preset \(preset) "
                + "has neither 'guide:' nor 'voice.track'; give a number of minutes")
        }
    }
}
