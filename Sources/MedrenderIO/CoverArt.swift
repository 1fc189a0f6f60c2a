import Foundation

/// A cover image (PNG or JPEG) for the formats that hold one: MP3 (an ID3 `APIC` frame), FLAC (a
/// `PICTURE` block), OGG and Opus (a `METADATA_BLOCK_PICTURE` comment, the FLAC block in base64).
/// WAV holds none.
public struct CoverArt: Sendable, Hashable {
    /// The image file's bytes, as they are written into the output.
    public var data: [UInt8]
    /// `image/png` or `image/jpeg`.
    public var mimeType: String
    /// The image's size in pixels, and its bits per pixel, as the FLAC picture block gives them.
    public var width: Int
    public var height: Int
    public var bitsPerPixel: Int
    /// The palette's colour count for an indexed PNG, else 0.
    public var colorCount: Int

    /// The largest image taken: 8 MiB, well within the 16 MiB a FLAC metadata block holds.
    public static let maximumBytes = 8 << 20

    /// Reads and checks the image at `path`.
    public init(path: String) throws(IOError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw IOError(.missingInput, "no such cover image; give a PNG or JPEG file", path: path)
        }
        guard let size = FilePaths.regularFileSize(path) else {
            throw IOError(.missingInput, "is not a regular file; give a PNG or JPEG file as the cover", path: path)
        }
        guard size <= Int64(Self.maximumBytes) else {
            throw IOError(.badData, "is \(size >> 20) MiB; a cover image takes at most 8 MiB: use a smaller one (such as 1400 × 1400 pixels)",
                          path: path)
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw IOError(.missingInput, "cannot be read: check its permissions", path: path)
        }
        try self.init(data: [UInt8](contents), path: path)
    }

    /// Checks `data` as a PNG or JPEG image; `path` names it in errors.
    public init(data: [UInt8], path: String) throws(IOError) {
        self.data = data
        if let png = Self.pngHeader(data) {
            mimeType = "image/png"
            (width, height, bitsPerPixel, colorCount) = png
            guard data.count >= 12, data.suffix(12).elementsEqual([0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]) else {
                throw IOError(.badData, "is a PNG image cut short (no IEND at its end); export it again", path: path)
            }
        } else if let jpeg = Self.jpegHeader(data) {
            mimeType = "image/jpeg"
            (width, height, bitsPerPixel) = jpeg
            colorCount = 0
            // The end-of-image marker, allowing for a few bytes some programs add after it.
            guard data.suffix(64).indices.contains(where: { $0 + 1 < data.count && data[$0] == 0xFF && data[$0 + 1] == 0xD9 }) else {
                throw IOError(.badData, "is a JPEG image cut short (no end-of-image marker); export it again", path: path)
            }
        } else {
            throw IOError(.badData, "is not a PNG or JPEG image; give the cover as a .png or .jpg file", path: path)
        }
        guard width > 0, height > 0 else { throw IOError(.badData, "is an image of no pixels (\(width) × \(height))", path: path) }
    }

    /// A PNG's width, height, bits per pixel and palette size, from its `IHDR` (and `PLTE`).
    static func pngHeader(_ d: [UInt8]) -> (Int, Int, Int, Int)? {
        guard d.count >= 33, d.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            d[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let width = Int(be32(d, 16)), height = Int(be32(d, 20))
        let depth = Int(d[24]), colorType = d[25]
        let samples: Int
        switch colorType {
        case 0: samples = 1
        case 2: samples = 3
        case 3: samples = 1
        case 4: samples = 2
        case 6: samples = 4
        default: return nil
        }
        var colors = 0
        if colorType == 3 {
            // The palette: the first PLTE chunk, three bytes a colour.
            var at = 8
            while at + 8 <= d.count {
                let length = Int(be32(d, at))
                if d[(at + 4)..<(at + 8)].elementsEqual("PLTE".utf8) { colors = length / 3; break }
                if d[(at + 4)..<(at + 8)].elementsEqual("IDAT".utf8) { break }
                at += 12 + length
            }
        }
        return (width, height, depth * samples, colors)
    }

    /// A JPEG's width, height and bits per pixel, from its start-of-frame marker.
    static func jpegHeader(_ d: [UInt8]) -> (Int, Int, Int)? {
        guard d.count >= 4, d[0] == 0xFF, d[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= d.count {
            guard d[at] == 0xFF else { return nil }
            let marker = d[at + 1]
            if marker == 0xFF { at += 1; continue }
            let length = Int(d[at + 2]) << 8 | Int(d[at + 3])
            // SOF0…SOF15, but not DHT (C4), JPG (C8) or DAC (CC).
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard at + 10 <= d.count else { return nil }
                let precision = Int(d[at + 4]), height = Int(d[at + 5]) << 8 | Int(d[at + 6])
                let width = Int(d[at + 7]) << 8 | Int(d[at + 8]), components = Int(d[at + 9])
                return (width, height, precision * components)
            }
            guard length >= 2 else { return nil }
            at += 2 + length
        }
        return nil
    }

    static func be32(_ d: [UInt8], _ at: Int) -> UInt32 {
        UInt32(d[at]) << 24 | UInt32(d[at + 1]) << 16 | UInt32(d[at + 2]) << 8 | UInt32(d[at + 3])
    }

    static func bytes32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// The body of a FLAC `PICTURE` metadata block: a front cover (type 3), its MIME type, no
    /// description, its size and depth, and the image.
    public var flacPictureBlock: [UInt8] {
        let mime = Array(mimeType.utf8)
        return Self.bytes32(3) + Self.bytes32(mime.count) + mime + Self.bytes32(0)
            + Self.bytes32(width) + Self.bytes32(height) + Self.bytes32(bitsPerPixel) + Self.bytes32(colorCount)
            + Self.bytes32(data.count) + data
    }

    /// The Vorbis comment that carries the picture in OGG and Opus files.
    public var vorbisComment: (String, String) {
        ("METADATA_BLOCK_PICTURE", Data(flacPictureBlock).base64EncodedString())
    }

    /// The body of an ID3v2 `APIC` frame: Latin-1 text, the MIME type, a front cover (type 3), no
    /// description, the image.
    public var id3PictureFrameBody: [UInt8] {
        [0] + Array(mimeType.utf8) + [0, 3, 0] + data
    }
}
