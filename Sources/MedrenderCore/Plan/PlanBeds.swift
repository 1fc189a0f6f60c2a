extension RenderPlan {
    /// Ambience: each bed takes over from the one before at its start point (by default the beds
    /// share the session equally), with an equal-power crossfade centred on the join.
    static func beds(session: Session, options: RenderOptions, sounds: [SoundRef: SoundFacts]?,
                     total: SessionTime, schedule: BreathSchedule) throws(PlanError) -> [BedEvent] {
        // A segment's own bed takes over as the segment starts (one that does not play, none).
        var session = session
        for (index, segment) in session.segments.enumerated() {
            guard var bed = segment.ambience, index < schedule.cycleCounts.count, schedule.cycleCounts[index] > 0 else { continue }
            bed.from = session.ambience.isEmpty ? nil : .time(schedule.segmentStarts[index])
            session.ambience.append(bed)
        }
        func frames(_ t: SessionTime) -> Int64 { t.frame(atRate: options.rate) }
        let layers = options.layers
        var beds: [BedEvent] = []
        if layers.contains(.ambience), !session.ambience.isEmpty {
            var generator = SeededGenerator(seed: session.seed)
            let count = session.ambience.count
            let crossfade = max(session.ambienceCrossfade, AmbienceBed.shortestCrossfade)
            let half = SessionTime(milliseconds: crossfade.milliseconds / 2)
            var joins: [SessionTime] = []
            for (index, bed) in session.ambience.enumerated().dropFirst() {
                let join: SessionTime
                switch bed.from {
                case .fraction(let f)?: join = SessionTime(milliseconds: Int64((Double(total.milliseconds) * f).rounded()))
                case .time(let t)?: join = t
                case nil: join = SessionTime(milliseconds: total.milliseconds * Int64(index) / Int64(count))
                }
                let previous = joins.last ?? .zero
                if join - half < previous + half || join + half > total {
                    throw .bedsOverlap(sound: bed.sound, at: join, crossfade: session.ambienceCrossfade, total: total)
                }
                joins.append(join)
            }
            for (index, bed) in session.ambience.enumerated() {
                let isFirst = index == 0, isLast = index == count - 1
                let start = isFirst ? .zero : joins[index - 1] - half
                let end = isLast ? total : joins[index] + half
                beds.append(BedEvent(
                    sound: bed.sound,
                    seamFrames: frames(bed.seam ?? (sounds?[bed.sound]?.loopsNaturally == true ? .zero : AmbienceBed.defaultSeam)),
                    gain: Float(decibelsToGain(sounds?[bed.sound]?.gainDecibels(toLevel: bed.levelLUFS) ?? 0)),
                    startFrame: frames(start), endFrame: frames(end),
                    fadeInFrames: frames(isFirst ? session.ambienceFadeIn : half * 2),
                    fadeOutFrames: frames(isLast ? session.ambienceFadeOut : half * 2),
                    fadeCurve: session.ambienceCurve, loopOffsetSeed: generator.next()))
                if let generator = bed.generator {
                    // Generated: its level from the generator's known loudness, its seed from the session's.
                    beds[beds.count - 1].generator = generator
                    beds[beds.count - 1].seamFrames = 0
                    beds[beds.count - 1].gain = Float(decibelsToGain(bed.levelLUFS - generator.loudnessLUFS(atRate: options.rate)))
                }
            }
        }

        return beds
    }
}
