import MedrenderCore

extension PresetDecoder {
    /// A bed of generated noise: `generator: white|pink|brown` (no sound, no seam: it never loops).
    static func decodeGeneratedBed(_ node: PresetNode, fields: [String: PresetNode]) throws(PresetError) -> AmbienceBed {
        for key in ["sound", "seam"] where fields[key] != nil {
            throw fields[key]!.error("a generated bed has no '\(key)': give 'generator' or 'sound', not both")
        }
        let colour = try node.choice(NoiseColour.self, what: "generator")
        var bed = AmbienceBed(sound: SoundRef("\(colour.rawValue) noise"))
        bed.generator = colour
        return bed
    }
}
