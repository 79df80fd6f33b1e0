"""One short paragraph in many languages, for comparing how tokenizers cut scripts and languages.

The paragraphs were written for bpe-viz (not copied from anywhere): the English one first, the
others are translations of it, line for line. Each has four lines, one sentence per line, about
an everyday morning, with a name (Maria) and a number (27) in it, so that the same content can
be counted in tokens across languages. Chinese is Simplified. Unlike :mod:`.corpora` (corpora to
train on, each a different text), these are the *same* text in different languages: samples to
encode, not to train on.

Example::

    >>> len(LANGUAGES) >= 10, list(LANGUAGES)[0]
    (True, 'English')
    >>> language_lines("English")[1]
    'Today she counted 27 ducks on the pond.'
    >>> all(len(language_lines(name)) == 4 for name in LANGUAGES)
    True
"""

from __future__ import annotations

__all__ = ["LANGUAGES", "language_lines"]

#: language name -> the paragraph (four lines, one sentence each); English first, then
#: translations of it. Written for this project.
LANGUAGES: dict[str, str] = {
    "English": (
        "Maria walks her dog in the park every morning.\n"
        "Today she counted 27 ducks on the pond.\n"
        "It started to rain, so they ran home quickly.\n"
        "Now the kitchen smells of hot tea and fresh bread."
    ),
    "German": (
        "Maria geht jeden Morgen mit ihrem Hund im Park spazieren.\n"
        "Heute hat sie 27 Enten auf dem Teich gezählt.\n"
        "Es fing an zu regnen, also liefen sie schnell nach Hause.\n"
        "Jetzt riecht die Küche nach heißem Tee und frischem Brot."
    ),
    "French": (
        "Maria promène son chien au parc tous les matins.\n"
        "Aujourd'hui, elle a compté 27 canards sur l'étang.\n"
        "Il a commencé à pleuvoir, alors ils sont vite rentrés à la maison.\n"
        "Maintenant, la cuisine sent le thé chaud et le pain frais."
    ),
    "Spanish": (
        "María pasea a su perro por el parque todas las mañanas.\n"
        "Hoy ha contado 27 patos en el estanque.\n"
        "Empezó a llover, así que volvieron a casa corriendo.\n"
        "Ahora la cocina huele a té caliente y pan recién hecho."
    ),
    "Russian": (
        "Мария каждое утро гуляет с собакой в парке.\n"
        "Сегодня она насчитала 27 уток на пруду.\n"
        "Начался дождь, и они быстро побежали домой.\n"
        "Теперь на кухне пахнет горячим чаем и свежим хлебом."
    ),
    "Chinese": (
        "玛丽亚每天早上都带她的狗去公园散步。\n"
        "今天她在池塘里数到了27只鸭子。\n"
        "开始下雨了，所以他们赶紧跑回了家。\n"
        "现在厨房里飘着热茶和新鲜面包的香味。"
    ),
    "Japanese": (
        "マリアは毎朝、犬を連れて公園を散歩します。\n"
        "今日は池でアヒルを27羽数えました。\n"
        "雨が降り始めたので、みんなで急いで家に帰りました。\n"
        "今、台所は温かいお茶と焼きたてのパンの香りがします。"
    ),
    "Korean": (
        "마리아는 매일 아침 개를 데리고 공원을 산책합니다.\n"
        "오늘 그녀는 연못에서 오리 27마리를 세었습니다.\n"
        "비가 오기 시작해서 그들은 서둘러 집으로 뛰어갔습니다.\n"
        "지금 부엌에서는 따뜻한 차와 갓 구운 빵 냄새가 납니다."
    ),
    "Hindi": (
        "मारिया हर सुबह अपने कुत्ते को पार्क में घुमाने ले जाती है।\n"
        "आज उसने तालाब में 27 बत्तखें गिनीं।\n"
        "बारिश शुरू हो गई, इसलिए वे जल्दी से घर भागे।\n"
        "अब रसोई में गरम चाय और ताज़ी रोटी की खुशबू आ रही है।"
    ),
    "Arabic": (
        "تمشي ماريا مع كلبها في الحديقة كل صباح.\n"
        "اليوم عدّت 27 بطة في البركة.\n"
        "بدأ المطر يهطل، فركضوا إلى البيت بسرعة.\n"
        "الآن تفوح من المطبخ رائحة الشاي الساخن والخبز الطازج."
    ),
    "Turkish": (
        "Maria her sabah köpeğini parkta gezdirir.\n"
        "Bugün gölette 27 ördek saydı.\n"
        "Yağmur başladı, bu yüzden hızla eve koştular.\n"
        "Şimdi mutfak sıcak çay ve taze ekmek kokuyor."
    ),
    "Swahili": (
        "Maria humtembeza mbwa wake bustanini kila asubuhi.\n"
        "Leo amehesabu bata 27 kwenye bwawa.\n"
        "Mvua ilianza kunyesha, kwa hiyo walikimbia nyumbani haraka.\n"
        "Sasa jikoni kunanukia chai ya moto na mkate mpya."
    ),
    "Greek": (
        "Η Μαρία βγάζει βόλτα τον σκύλο της στο πάρκο κάθε πρωί.\n"
        "Σήμερα μέτρησε 27 πάπιες στη λίμνη.\n"
        "Άρχισε να βρέχει, οπότε έτρεξαν γρήγορα στο σπίτι.\n"
        "Τώρα η κουζίνα μυρίζει ζεστό τσάι και φρέσκο ψωμί."
    ),
    "Vietnamese": (
        "Mỗi sáng Maria dắt chó đi dạo trong công viên.\n"
        "Hôm nay cô ấy đếm được 27 con vịt trên ao.\n"
        "Trời bắt đầu mưa, nên họ vội vàng chạy về nhà.\n"
        "Bây giờ căn bếp thơm mùi trà nóng và bánh mì mới nướng."
    ),
}


def language_lines(name: str) -> list[str]:
    """The paragraph of language ``name`` (a key of :data:`LANGUAGES`) as its lines.

    Example::

        >>> language_lines("German")[0]
        'Maria geht jeden Morgen mit ihrem Hund im Park spazieren.'
        >>> language_lines("Klingon")
        Traceback (most recent call last):
        ...
        ValueError: name must be one of the bundled languages (English, German, ...), got 'Klingon'
    """
    if not isinstance(name, str) or name not in LANGUAGES:
        known = ", ".join(LANGUAGES)
        raise ValueError(f"name must be one of the bundled languages ({known}), got {name!r}")
    return LANGUAGES[name].split("\n")
