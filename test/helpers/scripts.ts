/** One line in each script a contributor may write in. */
export const SCRIPTS = {
  vietnamese: 'Nguyễn Thị Hương kể chuyện ở Đà Nẵng',
  polish: 'Zażółć gęślą jaźń, łódź i ćma',
  turkish: 'Ağabeyim ışığı söndürdü; Şükrü güldü',
  romanian: 'Știință și țară, șapte țânțari',
  czech: 'Příliš žluťoučký kůň úpěl ďábelské ódy',
  greek: 'Γιαγιά, σ’ ευχαριστούμε για όλα',
  cyrillic: 'Бабушка, спасибо тебе за всё',
  arabic: 'شكرا لك يا جدتي على كل شيء',
  hebrew: 'תודה סבתא על הכול',
  devanagari: 'दादी माँ, सब कुछ के लिए धन्यवाद',
  chinese: '奶奶，谢谢您为我们做的一切。',
  japanese: 'おばあちゃん、いつもありがとう。富士山',
  korean: '할머니, 모든 것에 감사드려요',
  emoji: 'We love you ❤️ 🎂🎉 👩‍👧‍👦 👍🏽',
};
