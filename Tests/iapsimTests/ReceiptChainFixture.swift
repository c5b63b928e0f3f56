import IAPSimCrypto
import IAPSimKit

/// An RSA receipt chain made from a committed RSA-2048 key, TEST ONLY (made with `openssl
/// genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048`): one key at every level, so tests that
/// sign receipts do not wait for three keys to be made in a debug build (several seconds each).
/// `RSATests.generatedKey` in IAPSimCryptoTests and `certs rotate` in SignedDataTests make real ones.
enum ReceiptChainFixture {
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCqqSLSDKL6FpQ7
        cp76P3FXhehC0U+gJ+JcydIkJsFttXJ3r0uefWemlu2ANEuA6k/sDX8NKsK8RS7j
        7HHlaGPgY3UikKUMSMIlrpx9wb1ujJbyQx7gReSdF5NCw2PkZSjMRBO8cMeCBNX1
        3iC1JfSKSj4ZOPMAB6dnbtluPnp8c1wlzkPS1TRjw3MIC32GD2H64CFDOU8lr50U
        X4POtmsPbM5PZOoHOlUOF8D31Y3/l7rA2369wmIb6GBRdaDsxREleL9qjLHHCCEf
        47Q4128aPlP+qcD4ZId6VOIMiCWPO3gRTu9txdJl+hSMCqAxr71ix+EtmHvc1SBs
        OV8q9Jq3AgMBAAECggEAFC9oIm8DMdBM3REsE45Acikw9QI7yEYfZHkshUEePMMq
        1FQj/g14HoCYe8LzsT5FkLZx8hU+LjWCm8vCFu+3bHlnB90S4HaUnA9gjBFHvhUb
        33Cn7L/nj9sTfGCO5ps+bZaZvP6b4ll/ExMgTDy+hULNwH73YugE2VuHlR4Hr8Nl
        Z5zwHxfZYU4SM11lvYK5wKy69vWH64uggG6QO1qluzjANZmLZ7LWDH+4k+H2Uy9C
        0hX2jDpmTo3cx3q7XhLRUXuZ9599t3Qo28+oQVRM8Apo6+Tlgc9B9DnXf58BE/Zx
        Qqfpm2hvhfka1w6TMD28Q3FRIkzR1CFituzgSDCfDQKBgQDti/ZF0VC0WlyN4edt
        eqNHNYMCW3TnrLr8lBIv3RMFmGk9z227O++OM3feDpkPBbuTUMzmWuzft/6lXjx4
        sazUTH7T3plrKoY+jsmUbnwOx5SCLM4aV45qb66HT4c0vC0FcWkpkgtj8cGJtX5P
        N0sI9kUHmYqq7lWi7EtVJBhWawKBgQC36wbIOOcmN8FeiaUCOfC6TkGr76CkI3M2
        qvgmFxf1VHP0KQyy8Ge7dyy9OaLvdQ9kvSFIkp/KpwQXJaMLCtqykymHTkafNH8Z
        vMt0UhMsQ0t7g1yN2iCk5N/+YffAwaJ2WnA93R0qIGFmyPX1PQJSESR1nyb2CbAP
        VOkgw08n5QKBgQCBaOleebyktEGNzg7c9p2y8nUPuLFEcTZg2W3bA24Uc0aKNNHL
        2cgUyPc5UuyRYYchpzgpGknHSx6AComZGvpToeTKGY+s8Tq3I+SvZ01QY+wEytHx
        Sde9JmCHOI0o7ob8Wx92VSi9ZvwPwH8yOqY3GKrcjAoeOr8Ohfo4RPS5RwKBgBvB
        4eUoCWLQOWPuPDQo0HcdxnWPldwP6ZyPkyIUjC4fj9yCsYL0G4PEicEJSNkA/tDC
        ZpqQXoN0T3661G+fNMCMy1C7dJckkiYtQzuMA47DnUnH2pkiGZkpXdEDsiOqVb2t
        CpGbpIIuHuUnYU+g5I/EPI9v9K5fae32b7TdJT4tAoGAbLingxFhpUGFWkk9Usly
        iaY4yNgoQ7YjLRWdciUrXvzjcdC5MBhZ+i+4AM+bdb8dWgUJr54s/QZN+J66G0pf
        hW41negqpLqmzDBIjHbqYYfe56nThhqNQ7RWUAiGpsqzI16eVbsi2mbK5Xj/AWL1
        lleYNzG921ECb8ATcA1krZU=
        -----END PRIVATE KEY-----
        """

    static func make() throws -> ReceiptSigningChain {
        let key = try RSAPrivateKey(pemRepresentation: keyPEM)
        return try ReceiptSigningChain(rootKey: key, intermediateKey: key, leafKey: key)
    }
}
