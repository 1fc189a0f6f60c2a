import Foundation
import Medrender
import MedrenderBuild
import MedrenderCore

/// What a render is, as the cache and the ETag know it: the request's options once parsed and
/// resolved (every default filled in, numbers as numbers, so the query's spelling and order do
/// not matter), the preset file's bytes, each sound's file (path in the library, size, time), the
/// format, the renderer's version and what the session speaks (engine, voice, language, text and
/// the engine's version, so a new engine renders anew). Two requests with the same identity get the same bytes.
enum RenderIdentity {
    static func key(parameters: SessionParameters, presetFile: String, job: RenderJob, speech: [SpeechRequest]) -> String {
        var h = SHA256Hasher()
        h.update("medrender render \(LibraryBuild.rendererVersion)\n")
        // Every value as parsed, the layers in mixing order: a set's own order differs from one
        // set to another of the same layers.
        var fields = parameters
        fields.layers = []
        h.update(String(reflecting: fields) + " layers \(Layer.listed(parameters.layers))\n")
        h.update("format \(job.format.fileExtension) \(String(reflecting: job.format))\n")
        h.update("rate \(job.options.rate) channels \(job.options.channels)\n")
        h.update("preset \(SHA256Hasher.hashFile(at: presetFile) ?? "unreadable")\n")
        for sound in job.sounds.sounds.values.sorted(by: { $0.ref.name < $1.ref.name }) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: sound.path)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? -1
            h.update("sound \(sound.ref.name) \(URL(fileURLWithPath: sound.path).lastPathComponent) \(size) \(modified)\n")
        }
        if let cover = job.session.metadata.cover { h.update("cover \(SHA256Hasher.hashFile(at: cover) ?? "unreadable")\n") }
        for request in speech {
            h.update("speech \(request.key) \(request.engine.rawValue) \(request.voice) \(request.language.rawValue) \(request.engineVersion)\n")
        }
        return String(h.finalizeHex().prefix(40))
    }
}

/// The renders under way in this process, by identity: a request for one of them reads it
/// instead of starting another.
actor FlightTable {
    private var flights: [String: RenderFlight] = [:]

    /// The running flight of `key`, with a reader added, or nil (and `make`'s new one is
    /// registered, with its reader) when there is none.
    func join(_ key: String, make: () -> RenderFlight) -> (flight: RenderFlight, isNew: Bool) {
        if let flight = flights[key] {
            flight.addReader()
            return (flight, false)
        }
        let flight = make()
        flight.addReader()
        flights[key] = flight
        return (flight, true)
    }

    func remove(_ flight: RenderFlight) {
        if flights[flight.key] === flight { flights[flight.key] = nil }
    }
}
