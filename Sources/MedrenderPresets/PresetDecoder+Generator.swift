import MedrenderCore

extension PresetDecoder {
    /// A generated bed: `generator: white|pink|brown|grey|rain|ocean|stream|wind` (no sound, no
    /// seam: it never loops).
    static func decodeGeneratedBed(_ node: PresetNode, fields: [String: PresetNode]) throws(PresetError) -> AmbienceBed {
        for key in ["sound", "seam"] where fields[key] != nil {
            throw fields[key]!.error("a generated bed has no '\(key)': give 'generator' or 'sound', not both")
        }
        let generator = try node.choice(BedGenerator.self, what: "generator")
        var bed = AmbienceBed(sound: SoundRef(generator.displayName))
        bed.generator = generator
        return bed
    }
}
