/// A locale identifier as localizations are matched: case-insensitive, `-` and `_` the same,
/// read as language, optional script and optional region (`zh_Hant_TW`, `sr-Latn`, `ja`).
/// Plain byte work: this runs for every product of a large catalog.
///
/// A missing script is inferred the way CLDR's likely subtags do (Unicode's "Likely Subtags"
/// data, which Apple's `Locale.Language.maximalIdentifier` follows): `zh` is Simplified
/// Chinese, but `zh_TW`, `zh_HK` and `zh_MO` are Traditional; `sr` is Cyrillic but `sr_ME`
/// Latin; `pa_PK` is Arabic; `uz_AF` Arabic. Only languages written in more than one script
/// need an entry: for the others the language alone decides.
struct LocaleKey: Equatable {
    var bytes: [UInt8]

    init(_ identifier: String) {
        bytes = identifier.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "_")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
            default: byte
            }
        }
    }

    /// The part before the first `_`: the language.
    var language: ArraySlice<UInt8> {
        bytes.firstIndex(of: UInt8(ascii: "_")).map { bytes[..<$0] } ?? bytes[...]
    }

    /// The language, the script (four letters) and the region (two letters or three digits),
    /// lowercased; parts after them (variants) are ignored.
    var parts: (language: String, script: String?, region: String?) {
        let pieces = bytes.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
        let language = String(decoding: pieces.first ?? [], as: UTF8.self)
        var rest = pieces.dropFirst()
        var script: String?
        if let next = rest.first, next.count == 4, next.allSatisfy(Self.isLetter) {
            script = String(decoding: next, as: UTF8.self)
            rest = rest.dropFirst()
        }
        var region: String?
        if let next = rest.first,
            (next.count == 2 && next.allSatisfy(Self.isLetter))
                || (next.count == 3 && next.allSatisfy { (0x30...0x39).contains($0) })
        {
            region = String(decoding: next, as: UTF8.self)
        }
        return (language, script, region)
    }

    /// The script, as given or as CLDR's likely subtags infer it from the language and region;
    /// nil for a language written in one script only.
    var likelyScript: String? {
        let (language, script, region) = parts
        if let script { return script }
        if let region, let script = Self.scriptByRegion[language + "_" + region] { return script }
        return Self.defaultScript[language]
    }

    /// How well a localization in `candidate` serves this locale, higher is better; nil when it
    /// is another language.
    func matchQuality(_ candidate: LocaleKey) -> Int? {
        if candidate.bytes == bytes { return 5 }
        guard candidate.language == language else { return nil }
        guard candidate.likelyScript == likelyScript else { return 1 }
        let region = parts.region
        let candidateRegion = candidate.parts.region
        if candidateRegion == region { return 4 }
        return candidateRegion == nil ? 3 : 2
    }

    /// The index of the best of `candidates` for this locale, the first of equals; nil when
    /// none is at least `minimum` (1: the same language; 2: the same language and script).
    func bestMatch(among candidates: [LocaleKey], minimum: Int = 1) -> Int? {
        var best: (index: Int, quality: Int)?
        for (index, candidate) in candidates.enumerated() {
            guard let quality = matchQuality(candidate), quality >= minimum, quality > (best?.quality ?? 0) else {
                continue
            }
            best = (index, quality)
            if quality == 5 { break }
        }
        return best?.index
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }

    /// CLDR likely subtags: the script of a language alone, for languages written in several.
    private static let defaultScript: [String: String] = [
        "zh": "hans", "yue": "hant", "sr": "cyrl", "pa": "guru", "uz": "latn", "az": "latn", "bs": "latn",
        "mn": "cyrl", "kk": "cyrl", "ky": "cyrl", "tg": "cyrl", "ha": "latn", "ms": "latn", "ks": "arab",
        "sd": "arab", "shi": "tfng", "vai": "vaii", "ff": "latn", "ku": "latn", "hi": "deva", "ur": "arab",
        "sat": "olck", "mni": "beng", "en": "latn", "ja": "jpan", "ko": "kore",
    ]

    /// CLDR likely subtags: where a region changes a language's script.
    private static let scriptByRegion: [String: String] = [
        "zh_tw": "hant", "zh_hk": "hant", "zh_mo": "hant", "zh_cn": "hans", "zh_sg": "hans", "zh_my": "hans",
        "yue_cn": "hans", "sr_me": "latn", "sr_ro": "latn", "sr_ru": "latn", "sr_tr": "latn", "pa_pk": "arab",
        "uz_af": "arab", "uz_cn": "cyrl", "az_iq": "arab", "az_ir": "arab", "az_ru": "cyrl", "mn_cn": "mong",
        "kk_cn": "arab", "kk_af": "arab", "kk_ir": "arab", "ky_cn": "arab", "tg_pk": "arab", "ha_cm": "arab",
        "ha_sd": "arab", "ms_cc": "arab", "sd_in": "deva", "ku_lb": "arab", "ff_gn": "latn", "shi_ma": "tfng",
    ]
}
