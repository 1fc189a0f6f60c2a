import CVorbis
import Foundation

/// Encodes one OGG Vorbis stream in pieces, on several threads: to a decoder it is one ordinary
/// stream, with one header set, granule positions counted from its first frame and pages numbered
/// in order.
///
/// How the pieces meet. A Vorbis block overlaps half of each neighbour, and a long block's window
/// depends on the sizes of the blocks beside it, so two encoders' packets can follow each other
/// only where both place the same long block at the same frame, followed by another long block.
/// A scout (libvorbis choosing block sizes, without coding them: a small part of the work) runs
/// over the whole stream as it arrives and says where a continuous encoder puts its blocks. Near
/// each nominal boundary (every `pieceSeconds`), the splice is the first pair of long blocks the
/// scout places there. The next piece's encoder starts a pre-roll before it (so its state, and its
/// packets from the splice on, are those of a continuous encoder), at the first of a few starting
/// frames whose own block choices meet the scout's at the splice; each piece's packets are kept
/// from one splice to the next. Every choice depends on the audio alone, never on the number of
/// threads, so the bytes are the same with 1, 2 or 4.
///
/// Memory: the audio of at most `threads` pieces being encoded and two being gathered.
/// Not `Sendable`: one encoder belongs to the thread that feeds it.
public final class PiecedVorbisEncoder {
    /// The stream serial, as for `VorbisEncoder`.
    public static let serial = VorbisEncoder.serial
    /// The nominal length of a piece in seconds.
    public static let defaultPieceSeconds = 15.0
    /// The pre-roll before each piece, in seconds.
    static let prerollSeconds = 0.5

    public let channels: Int
    public let rate: Int
    private let quality: Double
    private let threads: Int
    private let totalFrames: Int
    private let pieceFrames: Int
    private let prerollFrames: Int
    private let shortBlock: Int
    private let longBlock: Int

    private let output: OggPacketWriter
    /// The three header packets.
    public let headerPackets: [VorbisPacket]
    /// Called with every audio packet as it goes on the stream, in order.
    public var packetObserver: ((VorbisPacket) throws -> Void)?
    /// Where the pieces meet: for each splice, the frame at the centre of the last block of the
    /// piece before (the next piece's first block overlaps it from there on, half a long block).
    public private(set) var splices: [Int64] = []
    /// The long block's length in frames, which the stream's rate and quality choose.
    public var longBlockFrames: Int { longBlock }

    /// The scout: where a continuous encoder puts its blocks.
    private let scout: VorbisAnalysis
    /// The scout's blocks not yet looked at, in order.
    private var scoutBlocks: [VorbisBlockShape] = []
    /// Frames received so far.
    private var received = 0

    /// A piece whose audio is being gathered.
    private struct Gathering {
        var index: Int
        /// The frame its buffer starts at.
        var bufferStart: Int
        var audio: [Float]
        /// Its encoder's first frame, once chosen.
        var start: Int?
        var keepAfter: Int64?
        /// Its last kept block's centre, once the scout has found the next splice.
        var keepThrough: Int64?
        /// The frame its encoder's audio ends at, once known.
        var end: Int?
        var last: Bool
    }
    /// At most two: the piece being gathered, and the next one's pre-roll.
    private var gathering: [Gathering] = []
    /// Pieces given to a thread (or encoded), oldest first.
    private var inFlight: [PieceResult] = []
    private let queue = DispatchQueue(label: "medrender.vorbis-pieces", attributes: .concurrent)
    private var finished = false

    /// Starts a stream and writes its headers.
    ///
    /// - Parameters:
    ///   - quality: as oggenc's `-q`, −1…10, default 4.
    ///   - totalFrames: the frames the stream will be given (a stream given fewer ends where they end).
    ///   - threads: how many pieces are encoded at once, 1 or more; the bytes do not depend on it.
    ///   - pieceSeconds: the nominal length of a piece, default 15.
    public init(sink: ByteSink, channels: Int, rate: Int, quality: Double, tags: [(String, String)] = [], totalFrames: Int,
                threads: Int, pieceSeconds: Double = PiecedVorbisEncoder.defaultPieceSeconds) throws(IOError) {
        self.channels = channels
        self.rate = rate
        self.quality = quality
        self.threads = max(1, threads)
        self.totalFrames = totalFrames
        scout = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        shortBlock = scout.shortBlock
        longBlock = scout.longBlock
        // Piece lengths and pre-rolls in whole steps of 4096 frames, half the largest Vorbis block:
        // an encoder starting on one has a continuous encoder's block grid until a short block.
        let step = 4096
        pieceFrames = max(1, Int((pieceSeconds * Double(rate) / Double(step)).rounded())) * step
        prerollFrames = max(1, Int((Self.prerollSeconds * Double(rate) / Double(step)).rounded(.up))) * step
        headerPackets = try scout.headerPackets(tags: tags)
        output = try OggPacketWriter(sink: sink, serial: Self.serial)
        try output.writeHeaders(headerPackets)
        gathering = [Gathering(index: 0, bufferStart: 0, audio: [], start: 0, keepAfter: nil, keepThrough: nil, end: nil,
                               last: !hasBoundary(after: 0))]
        gathering[0].audio.reserveCapacity(min(totalFrames, pieceFrames + prerollFrames) * channels)
    }

    deinit {
        // A stream abandoned mid-way still waits for its threads, which hold no reference to it.
        for result in inFlight { _ = result.wait() }
    }

    /// The nominal boundary after piece `index`: `(index + 1) × pieceFrames`, when a piece of
    /// at least one piece's length is left after it.
    private func nominalBoundary(after index: Int) -> Int { (index + 1) * pieceFrames }
    private func hasBoundary(after index: Int) -> Bool { nominalBoundary(after: index) + pieceFrames <= totalFrames }
    /// How far before a boundary the next piece's buffer starts: the pre-roll and the starts tried.
    private var lead: Int { prerollFrames + 2 * longBlock }

    /// Encodes `frameCount` interleaved frames.
    public func write(_ frames: UnsafePointer<Float>, frameCount: Int) throws(IOError) {
        var done = 0
        while done < frameCount {
            // In steps no longer than the distance to the next frame something happens at.
            var n = frameCount - done
            if let next = gathering.last, !next.last {
                let open = nominalBoundary(after: next.index) - lead
                if received < open { n = min(n, open - received) }
            }
            for g in gathering.indices {
                if let end = gathering[g].end, received < end { n = min(n, end - received) }
            }
            let chunk = frames + done * channels
            for g in gathering.indices {
                let end = gathering[g].end ?? Int.max
                guard received < end else { continue }
                gathering[g].audio.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n * channels))
            }
            // The scout is needed until the last piece starts gathering.
            if gathering.count == 2 || !gathering[0].last {
                try scout.write(chunk, frameCount: n) { (shape) throws(IOError) in scoutBlocks.append(shape) }
            }
            received += n
            done += n
            try advance()
        }
    }

    /// Opens the next piece's buffer, finds splices, chooses starts, and sends complete pieces
    /// to be encoded, as far as the audio received allows.
    private func advance() throws(IOError) {
        // The next piece's buffer opens `lead` frames before its nominal boundary.
        if let current = gathering.last, !current.last, current.keepThrough == nil, gathering.count == 1,
            received >= nominalBoundary(after: current.index) - lead
        {
            let boundary = nominalBoundary(after: current.index)
            let bufferStart = boundary - lead
            var next = Gathering(index: current.index + 1, bufferStart: bufferStart, audio: [], start: nil, keepAfter: nil,
                                 keepThrough: nil, end: nil, last: !hasBoundary(after: current.index + 1))
            next.audio.reserveCapacity((min(totalFrames, boundary + 2 * pieceFrames) - bufferStart) * channels)
            let have = received - bufferStart
            let from = gathering[0].audio.count - have * channels
            next.audio.append(contentsOf: gathering[0].audio[from...])
            gathering.append(next)
        }
        // The scout's blocks are looked at only near the next boundary.
        if let current = gathering.first, gathering.count == 2 || !current.last {
            let boundary = Int64(nominalBoundary(after: current.index))
            if let first = scoutBlocks.firstIndex(where: { $0.center >= boundary - Int64(longBlock) }) {
                scoutBlocks.removeFirst(first)
            } else {
                scoutBlocks.removeAll(keepingCapacity: true)
            }
        } else {
            scoutBlocks.removeAll()
        }
        // The splice: the first two long blocks in a row at or after the nominal boundary.
        if gathering.count == 2, gathering[0].keepThrough == nil {
            let boundary = Int64(nominalBoundary(after: gathering[0].index))
            let half = Int64(longBlock / 2)
            var found: Int64?
            for i in scoutBlocks.indices.dropLast() where scoutBlocks[i].center >= boundary {
                let a = scoutBlocks[i], b = scoutBlocks[i + 1]
                if a.long, b.long, b.center == a.center + half { found = a.center; break }
            }
            if let splice = found {
                gathering[0].keepThrough = splice
                gathering[0].end = Int(splice) + 3 * longBlock
                gathering[1].keepAfter = splice
                // Trim what arrived after the end.
                let keep = (Int(splice) + 3 * longBlock - gathering[0].bufferStart) * channels
                if gathering[0].audio.count > keep { gathering[0].audio.removeLast(gathering[0].audio.count - keep) }
            } else if received >= Int(boundary) + pieceFrames / 2 {
                // No two long blocks in a row for half a piece (a stream of transients): this
                // piece runs to the end, in one encoder.
                gathering.removeLast()
                gathering[0].last = true
            }
        }
        // The next piece's start, once its buffer reaches past the splice.
        if gathering.count == 2, let splice = gathering[1].keepAfter, gathering[1].start == nil,
            received >= Int(splice) + 3 * longBlock
        {
            gathering[1].start = try chooseStart(gathering[1], splice: splice)
        }
        // A piece whose audio is all here goes to be encoded.
        if let first = gathering.first, let start = first.start, let end = first.end, received >= end {
            try send(first, start: start)
            gathering.removeFirst()
        }
        try emitFinished(wait: false)
    }

    /// The first encoder start, a pre-roll before the splice, whose block choices meet the
    /// scout's at the splice: a long block on it and another after it.
    ///
    /// An encoder starting on a step of 4096 frames has a continuous one's grid unless short
    /// blocks moved the stream's grid (by multiples of half a short block), so the starts tried
    /// are the boundary's pre-roll and then each shift by half a short block, up to two long blocks.
    private func chooseStart(_ piece: Gathering, splice: Int64) throws(IOError) -> Int {
        let boundary = nominalBoundary(after: piece.index - 1)
        let base = boundary - prerollFrames
        let step = max(1, shortBlock / 2)
        let count = 2 * longBlock / step
        // First the base; then the shift that puts the base's grid on the splice; then the rest.
        var order: [Int] = [0]
        let half = Int64(longBlock / 2)
        if let grid = try blocks(of: piece, from: base, through: splice).last(where: \.long)?.center {
            let shift = Int(((grid - splice) % half + half) % half)
            for d in [shift, shift + Int(half), shift + 2 * Int(half), shift + 3 * Int(half)] where d > 0 && d < count * step {
                order.append(d)
            }
        }
        for j in 1..<count where !order.contains(j * step) { order.append(j * step) }
        for d in order {
            let start = base - d
            let shapes = try blocks(of: piece, from: start, through: splice + half)
            if let i = shapes.firstIndex(where: { $0.center == splice }), i + 1 < shapes.count, shapes[i].long,
                shapes[i + 1].long, shapes[i + 1].center == splice + half
            {
                return start
            }
        }
        throw IOError(.library, "no Vorbis encoder start meets the splice at frame \(splice)")
    }

    /// The block shapes (centres in the stream's frames) of an encoder started at `start`,
    /// up to the first one centred at or after `through`.
    private func blocks(of piece: Gathering, from start: Int, through: Int64) throws(IOError) -> [VorbisBlockShape] {
        let analysis = try VorbisAnalysis(channels: channels, rate: rate, quality: quality)
        var shapes: [VorbisBlockShape] = []
        let frames = piece.audio.count / channels
        var at = start - piece.bufferStart
        precondition(at >= 0, "the piece's buffer starts after the start tried")
        try piece.audio.withUnsafeBufferPointer { (p) throws(IOError) in
            while at < frames, shapes.last.map({ $0.center < through }) ?? true {
                let n = min(VorbisEncoder.blockFrames, frames - at)
                try analysis.write(p.baseAddress! + at * channels, frameCount: n) { (shape) throws(IOError) in
                    var placed = shape
                    placed.center += Int64(start)
                    shapes.append(placed)
                }
                at += n
            }
        }
        return shapes
    }

    /// Gives a complete piece to a thread, or encodes it here with one thread.
    private func send(_ gathered: Gathering, start: Int) throws(IOError) {
        let skip = (start - gathered.bufferStart) * channels
        let audio = skip == 0 ? gathered.audio : Array(gathered.audio[skip...])
        if !gathered.last, let splice = gathered.keepThrough { splices.append(splice) }
        let piece = VorbisPiece(index: gathered.index, start: start, audio: audio, keepAfter: gathered.keepAfter,
                                keepThrough: gathered.last ? nil : gathered.keepThrough, channels: channels, rate: rate, quality: quality)
        // At most `threads` pieces at once: the oldest is written out before another starts.
        while inFlight.count >= threads { try emitFinished(wait: true) }
        let result = PieceResult()
        inFlight.append(result)
        if threads == 1 {
            result.set(Result { () throws(IOError) in try piece.encode() })
        } else {
            queue.async { result.set(Result { () throws(IOError) in try piece.encode() }) }
        }
    }

    /// Writes the oldest pieces that are done, in order; with `wait`, waits for the oldest.
    private func emitFinished(wait: Bool) throws(IOError) {
        var waitForOne = wait
        while let oldest = inFlight.first {
            guard waitForOne || oldest.isDone else { return }
            waitForOne = false
            let packets = try oldest.wait().get()
            inFlight.removeFirst()
            for packet in packets {
                let placed = try output.add(packet.bytes, granulePosition: packet.granulePosition, endsStream: packet.endsStream)
                if let packetObserver {
                    do { try packetObserver(placed) } catch let error as IOError { throw error } catch {
                        throw IOError(.library, "the stream's check stopped", cause: "\(error)")
                    }
                }
            }
        }
    }

    /// Ends the stream: the last piece is encoded and every page written.
    public func finish() throws(IOError) {
        guard !finished else { return }
        finished = true
        // Whatever is still gathering ends at the last frame received.
        if gathering.count == 2, gathering[1].start == nil || received < (gathering[0].end ?? Int.max) {
            gathering.removeLast()
            gathering[0].keepThrough = nil
        }
        if gathering.count == 2 {
            gathering[1].last = true
            gathering[1].end = received
        } else if !gathering.isEmpty {
            gathering[0].last = true
            gathering[0].end = received
        }
        for g in gathering {
            guard let start = g.start else { continue }
            try send(g, start: start)
        }
        gathering.removeAll()
        while !inFlight.isEmpty { try emitFinished(wait: true) }
        try output.flush()
    }
}

/// A piece's packets, handed from the thread that encodes it to the one that writes the stream.
private final class PieceResult: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<[VorbisPiecePacket], IOError>?

    func set(_ value: Result<[VorbisPiecePacket], IOError>) {
        condition.lock()
        result = value
        condition.broadcast()
        condition.unlock()
    }

    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return result != nil
    }

    func wait() -> Result<[VorbisPiecePacket], IOError> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}

/// An OGG Vorbis encoder whose packets can be watched as they go on the stream.
public protocol VorbisPacketSource: AnyObject {
    /// The stream's three header packets.
    var headerPackets: [VorbisPacket] { get }
    /// Called with every audio packet, in the stream's order.
    var packetObserver: ((VorbisPacket) throws -> Void)? { get set }
}

extension VorbisEncoder: VorbisPacketSource {}
extension PiecedVorbisEncoder: VorbisPacketSource {}
