import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderPresets

/// The measured loudness and peak of mixes already rendered (pass 1's result), so that rendering the same
/// mix again (a repeat request to a server, the same session in another format) skips pass 1 and
/// starts writing at once. The mix is known by everything it is made of: the session, the options
/// that shape it (rate, channels, length, layers) and each sound's file, size and modification
/// time. Safe to share between threads; it keeps at most `capacity` entries.
// `@unchecked`: the entries and their order are read and written under `lock` only.
public final class LoudnessCache: @unchecked Sendable {
    struct Key: Hashable {
        var session: Session
        var options: RenderOptions
        var sounds: [SoundIdentity]

        struct SoundIdentity: Hashable {
            var ref: SoundRef
            var path: String
            var file: FileIdentity
        }

        init(job: RenderJob) {
            session = job.session
            options = job.options
            sounds = job.sounds.sounds.values.sorted { $0.ref.name < $1.ref.name }.map { sound in
                SoundIdentity(ref: sound.ref, path: sound.path, file: FileIdentity(path: sound.path))
            }
        }
    }

    private let lock = NSLock()
    private var entries: [Key: LoudnessPass.Measure] = [:]
    private var order: [Key] = []
    public let capacity: Int

    public init(capacity: Int = 1024) { self.capacity = max(1, capacity) }

    /// How many mixes it knows.
    public var count: Int { lock.withLock { entries.count } }

    func measured(_ key: Key) -> LoudnessPass.Measure? { lock.withLock { entries[key] } }

    func record(_ measure: LoudnessPass.Measure, for key: Key) {
        lock.withLock {
            if entries.updateValue(measure, forKey: key) == nil { order.append(key) }
            while order.count > capacity { entries[order.removeFirst()] = nil }
        }
    }
}
