/// In a session with a voice, which sets its loudness, a cue sounds at most 3 LU under the voice's
/// level (its loudest 400 ms against the level every voice clip plays at), whatever its gain, as a
/// bell strikes (`BellSettings.strikeUnderVoiceLU`): a cue is the breath's signpost, heard under
/// the words and never over them. The voice's own loudest 400 ms come 4–5 LU over its level, and a
/// file sits 2–7 LU under its voice (7 where the voice speaks only an intro and an outro, as in
/// pranayama, whose cues at the voice's level came 6.2 LU over the whole file), so a cue so capped
/// stays under the voice's loudest and within 6 LU of the file.
extension CuePlan {
    /// How far under the voice's level (`voice.level`) a cue's loudest 400 ms stays.
    public static let loudestUnderVoiceLU = BellSettings.strikeUnderVoiceLU

    /// This cue with its gain capped under `voiceLevel` (LUFS); `sounds` gives a recorded cue's
    /// loudness, at `rate`.
    func levelled(under voiceLevel: Double, rate: Int, sounds: [SoundRef: SoundFacts]?) -> CuePlan {
        guard let loudest = loudestLUFS(rate: rate, sounds: sounds) else { return self }
        var capped = self
        capped.sound.gainDecibels = min(sound.gainDecibels, voiceLevel - Self.loudestUnderVoiceLU - loudest)
        return capped
    }

    /// The loudest 400 ms of the cue at unit gain, as it plays (a mono tone weighed as dual mono,
    /// as it sounds on both speakers at any pan); nil for a recorded cue of unknown loudness.
    func loudestLUFS(rate: Int, sounds: [SoundRef: SoundFacts]?) -> Double? {
        switch sound.source {
        case .sound(let ref):
            return sounds?[ref]?.loudestLUFS
        case .synth(let timbre):
            let key = MixAssets.ToneKey(timbre: timbre, pitchHertz: sound.pitchHertz, frameCount: Int(lengthFrames), rate: rate)
            return ToneCache.shared.entry(key).loudestLUFS
        }
    }
}
