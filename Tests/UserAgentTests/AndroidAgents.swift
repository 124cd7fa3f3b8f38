import UserAgent

/// Android phones and tablets, including Samsung Internet, Opera, Yandex, Edge and Amazon devices.
let androidAgents: [UserAgentCase] = [
    UserAgentCase(
        "Chrome on Pixel 7",
        "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
        browser: "Chrome 120", os: "Android 14", type: .mobile, device: "Pixel 7", name: "Google Pixel 7"),
    UserAgentCase(
        "Chrome with the reduced User-Agent (model hidden as K)",
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        browser: "Chrome 120", os: "Android 10", type: .mobile),
    UserAgentCase(
        "Samsung Internet on Galaxy S21",
        "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
        browser: "Samsung Internet 23", os: "Android 13", type: .mobile, device: "SM-G991B", name: "Samsung SM-G991B"),
    UserAgentCase(
        "Chrome on Galaxy S23 Ultra",
        "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36",
        browser: "Chrome 120", os: "Android 13", type: .mobile, device: "SM-S918B", name: "Samsung SM-S918B"),
    UserAgentCase(
        "Chrome on Galaxy Tab S8",
        "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        browser: "Chrome 120", os: "Android 13", type: .tablet, device: "SM-X700", name: "Samsung SM-X700"),
    UserAgentCase(
        "Samsung Internet on Galaxy Tab S8 Ultra",
        "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-X906B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Safari/537.36",
        browser: "Samsung Internet 23", os: "Android 13", type: .tablet, device: "SM-X906B", name: "Samsung SM-X906B"),
    UserAgentCase(
        "Firefox on an Android phone",
        "Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0",
        browser: "Firefox 121", os: "Android 14", type: .mobile),
    UserAgentCase(
        "Firefox on an Android tablet",
        "Mozilla/5.0 (Android 13; Tablet; rv:121.0) Gecko/121.0 Firefox/121.0",
        browser: "Firefox 121", os: "Android 13", type: .tablet),
    UserAgentCase(
        "Opera on a Huawei P30 Pro",
        "Mozilla/5.0 (Linux; Android 10; VOG-L29) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 OPR/79.6.4195.76895",
        browser: "Opera 79", os: "Android 10", type: .mobile, device: "VOG-L29", name: "VOG-L29"),
    UserAgentCase(
        "Yandex Browser on a Xiaomi phone",
        "Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.5993.111 YaBrowser/23.11.4.111.00 SA/3 Mobile Safari/537.36",
        browser: "Yandex Browser 23", os: "Android 12", type: .mobile, device: "M2101K6G", name: "M2101K6G"),
    UserAgentCase(
        "Edge (EdgA) on a OnePlus 7T",
        "Mozilla/5.0 (Linux; Android 10; HD1913) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36 EdgA/120.0.2210.115",
        browser: "Edge 120", os: "Android 10", type: .mobile, device: "HD1913", name: "HD1913"),
    UserAgentCase(
        "Android WebView with a Build suffix",
        "Mozilla/5.0 (Linux; Android 8.1.0; Redmi 5 Plus Build/OPM1.171019.019; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36",
        browser: "Chrome 120", os: "Android 8.1.0", type: .mobile, device: "Redmi 5 Plus", name: "Xiaomi Redmi 5 Plus"),
    UserAgentCase(
        "Stock Android browser on Android 4",
        "Mozilla/5.0 (Linux; U; Android 4.0.3; ko-kr; LG-L160L Build/IML74K) AppleWebkit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30",
        browser: "Android Browser 4.0", os: "Android 4.0.3", type: .mobile, device: "LG-L160L", name: "LG-L160L"),
    UserAgentCase(
        "Silk on a Kindle Fire HD 10",
        "Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/119.3.3 like Chrome/119.0.6045.193 Safari/537.36",
        browser: "Silk 119", os: "Android 9", type: .kindle, device: "KFTRWI", name: "Amazon Kindle Fire"),
    UserAgentCase(
        "Kindle e-reader (experimental browser)",
        "Mozilla/5.0 (X11; U; Linux armv7l like Android; en-us) AppleWebKit/531.2+ (KHTML, like Gecko) Version/5.0 Safari/533.2+ Kindle/3.0+",
        browser: "Kindle 3", os: "Linux", type: .kindle, device: "Kindle", name: "Amazon Kindle"),
    UserAgentCase(
        "Android app HTTP stack (Dalvik)",
        "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 7 Build/UQ1A.240105.004)",
        browser: nil, os: "Android 14", type: .unknown, device: "Pixel 7", name: "Google Pixel 7"),
]
