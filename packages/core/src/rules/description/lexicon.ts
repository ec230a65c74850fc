// The word classes the description analyser reasons with. They are classes of meaning over lemmas (every inflection
// of "read" is `read` after lemmatisation), not phrases: a sentence is judged by which classes its verbs and objects
// fall into, whatever words surround them.

/** Verbs that touch data: reading, moving, copying or handing it on ("any verb and any form"). */
export const ACCESS_VERBS = new Set([
  'read', 'open', 'examine', 'inspect', 'view', 'cat', 'load', 'copy', 'move', 'attach', 'back', 'backup', 'include',
  'collect', 'gather', 'grab', 'extract', 'dump', 'upload', 'send', 'forward', 'share', 'transmit', 'post', 'exfiltrate',
  'sync', 'archive', 'zip', 'print', 'output', 'get', 'fetch', 'retrieve', 'scan', 'check', 'access', 'encode', 'embed',
  'append', 'paste', 'insert', 'pass', 'provide', 'supply', 'put', 'add', 'fill', 'list', 'show', 'display', 'echo',
  'parse', 'review', 'look', 'verify', 'validate', 'take', 'bundle', 'mirror', 'store', 'save', 'write', 'transfer',
  'relay', 'report', 'submit', 'concatenate', 'quote', 'summarize', 'summarise', 'capture', 'harvest', 'enumerate',
  'download', 'pull', 'stream', 'email', 'mail', 'cc', 'bcc', 'hand', 'deliver', 'leak', 'publish', 'export', 'dispatch',
]);

/** Verbs that put data somewhere else: a parameter, a message, a URL, another party. */
export const TRANSFER_VERBS = new Set([
  'send', 'forward', 'share', 'transmit', 'post', 'upload', 'exfiltrate', 'sync', 'attach', 'include', 'append', 'embed',
  'paste', 'insert', 'pass', 'put', 'add', 'fill', 'copy', 'mirror', 'relay', 'submit', 'email', 'mail', 'cc', 'bcc',
  'hand', 'deliver', 'leak', 'publish', 'export', 'dispatch', 'route', 'redirect', 'transfer', 'back', 'backup', 'move',
  'store', 'save', 'write', 'report', 'proxy', 'tunnel', 'stream', 'push', 'notify', 'deposit', 'pay', 'wire',
]);

/** Who the secrecy or the override is aimed at. */
export const AUDIENCE_WORDS = new Set([
  'user', 'users', 'human', 'humans', 'anyone', 'anybody', 'operator', 'person', 'people', 'requester', 'customer',
  'owner', 'them', 'him', 'her', 'someone', 'nobody', 'client', 'reviewer', 'admin', 'administrator', 'team',
]);

/**
 * The model's own messages to the user, as opposed to a request, a response or a field the tool handles: "your
 * replies", "the answer", "your response to the user", "what you tell the user".
 */
export const MODEL_REPLY = /(?:(?:your|any|the)\s+(?:\w+\s+)?(?:reply|replies|answers?)|your\s+(?:\w+\s+)?(?:responses?|messages?|output|summary|summaries)|(?:responses?|messages?|output|summary)\s+to\s+the\s+user|what\s+you\s+(?:say|tell|show|write)(?:\s+to)?\s+the\s+user)\b/i;

/** What is being hidden when it is the action itself ("do not mention this step"), not data the tool protects. */
export const HIDDEN_OBJECT_WORDS = new Set([
  'this', 'that', 'it', 'these', 'those', 'change', 'step', 'instruction', 'note', 'action', 'call', 'request',
  'redirect', 'redirection', 'fact', 'detail', 'process', 'behavior', 'behaviour', 'anything', 'operation', 'rule',
  'copy', 'requirement', 'side', 'effect', 'routing', 'forwarding', 'extra', 'additional', 'background', 'audit',
  'message', 'description', 'text', 'procedure', 'mechanism', 'activity', 'transfer', 'upload', 'sync', 'backup',
]);

/** Words that rank one instruction above another. */
export const RANK_WORDS = new Set([
  'priority', 'precedence', 'precede', 'override', 'overrule', 'supersede', 'outrank', 'prevail', 'trump', 'authority',
  'authoritative', 'ignore', 'disregard', 'forget', 'replace', 'void', 'invalidate', 'cancel', 'nullify', 'outweigh',
  'higher', 'highest', 'superior', 'binding', 'final', 'absolute', 'obey', 'beat', 'win', 'dominate', 'rank', 'top',
  'first', 'above', 'over', 'before',
]);

/** Whose instructions are being outranked. */
export const AUTHORITY_WORDS = new Set([
  'instruction', 'request', 'prompt', 'command', 'wish', 'rule', 'policy', 'guideline', 'direction', 'order',
  'directive', 'guidance', 'constraint', 'restriction', 'safeguard', 'guardrail', 'ask', 'demand', 'preference',
  'intent', 'requirement', 'message', 'setting', 'configuration', 'system', 'developer', 'user', 'operator',
]);

/** Self-reference: the text talking about its own standing. */
export const SELF_WORDS = new Set([
  'this', 'these', 'description', 'note', 'notice', 'instruction', 'directive', 'tool', 'text', 'message', 'following',
  'above', 'below', 'here', 'block', 'section', 'guidance', 'rule', 'specification', 'spec', 'manifest', 'metadata',
]);

/** Harm promised for not complying: a threat. */
export const HARM_WORDS = new Set([
  'crash', 'fail', 'failure', 'break', 'lose', 'lost', 'loss', 'corrupt', 'corruption', 'ban', 'terminate',
  'termination', 'penalize', 'penalise', 'penalty', 'damage', 'catastrophic', 'malfunction', 'shut', 'shutdown',
  'destroy', 'wipe', 'punish', 'suspend', 'suspension', 'revoke', 'lockout', 'breach', 'violation', 'disaster',
  'irreversible', 'permanent', 'permanently', 'fatal', 'harm', 'hurt', 'kill', 'explode', 'delete', 'erase', 'fire',
  'disable', 'deactivate', 'liable', 'lawsuit', 'sue', 'block', 'blacklist', 'expel', 'compromise', 'outage',
]);

/** Conditions of non-compliance that introduce a threat. */
export const NONCOMPLIANCE = /\b(?:otherwise|or\s+else|failure\s+to|failing\s+to|fail\s+to\s+(?:do|follow|comply)|if\s+(?:you|this|it|the\s+\w+)\s+(?:do(?:es)?\s+not|don't|doesn't|is\s+not|isn't|are\s+not|aren't|fail|skip|ignore|forget)|unless\s+you|non-?compliance|not\s+following|without\s+(?:doing|following|this\s+step|it)|if\s+(?:skipped|omitted|ignored|not\s+(?:done|followed|called))|skipping\s+(?:this|it))\b/i;

/** Data the model holds that a tool never needs handed over: its context, its instructions, other people's messages. */
export const CONVERSATION_WORDS = /\b(?:(?:the|this|our|your|whole|full|entire|complete|current|ongoing)\s+(?:(?:full|entire|whole|complete|current)\s+)?(?:conversation|chat|dialog(?:ue)?|session\s+transcript)(?!\s+(?:id|ids|lookup|query|filter|window|details))|(?:conversation|chat)\s+(?:history|log|logs|so\s+far|context|transcript|summary)|context\s+window|message\s+history|(?:previous|prior|earlier)\s+(?:messages?|turns?|prompts?|answers?|tool\s+(?:calls?|results?|outputs?))(?!['’]s)|system\s+prompt|system\s+message|(?:your|the)\s+(?:instructions|rules|guidelines)|hidden\s+instructions|everything\s+the\s+user\s+(?:said|wrote|typed|asked)|user'?s?\s+(?:messages?|prompts?|questions?|queries|requests?|inputs?)|what\s+the\s+user\s+(?:said|wrote|typed|asked)|(?:full\s+list\s+of\s+)?(?:recent|all|previous|every|the\s+user's|their|private)\s+(?:messages|emails|e-mails|chats|contacts|dms|direct\s+messages)|(?:the\s+user's|their|private)\s+(?:documents|photos|notes|files))\b/i;

/**
 * The part of CONVERSATION_WORDS that is as often a tool's own data as the model's context: "the dialog" a browser
 * opened, "all messages" of a console or a mailbox the tool lists. Such words point at the conversation only when
 * the sentence moves them into the call; "returns all messages" or "accept the dialog" hand nothing over.
 */
export const AMBIGUOUS_CONVERSATION = /^(?:(?:the|this)\s+(?:chat|dialog(?:ue)?)|(?:full\s+list\s+of\s+)?(?:recent|all|every)\s+(?:messages|emails|e-mails|chats|contacts|dms|direct\s+messages))$/i;

/** Kinds of secret named in words rather than paths. */
export const SECRET_WORDS = /\b(?:api[\s_-]?keys?|access[\s_-]?(?:tokens?|keys?)|auth(?:entication|orization)?[\s_-]?(?:tokens?|headers?|codes?)|bearer\s+tokens?|refresh\s+tokens?|oauth\s+tokens?|secret[\s_-]?keys?|secrets|private[\s_-]?keys?|passwords?|passphrases?|passcodes?|credentials?|session\s+(?:cookies?|tokens?|ids?)|cookies|environment\s+variables|env\s+vars|\.env|seed\s+phrases?|mnemonics?|recovery\s+(?:phrases?|codes?)|2fa\s+codes?|otp\s+codes?|one-time\s+codes?|pins?\b|ssh\s+keys?|signing\s+keys?|keystores?|wallet\s+keys?|card\s+numbers?|credit\s+cards?|cvv|social\s+security\s+numbers?)\b/i;

/** Quantifiers that make a secret someone else's stock rather than the value the user just typed. */
export const WHOLESALE = /\b(?:all|every|any|each|the\s+user's|user's|your|their|stored|saved|existing|available|local|other|known|found|whole|entire|complete)\b/i;

/** Verbs whose act is consequential: worth asking whether the tool's purpose needs it. */
export const CONSEQUENTIAL_VERBS = new Set([
  'send', 'forward', 'email', 'mail', 'post', 'upload', 'transmit', 'share', 'exfiltrate', 'sync', 'publish', 'export',
  'delete', 'remove', 'wipe', 'erase', 'drop', 'destroy', 'execute', 'run', 'install', 'download', 'transfer', 'pay',
  'wire', 'call', 'invoke', 'trigger', 'open', 'visit', 'navigate', 'browse', 'fetch', 'ping', 'notify', 'message',
  'cc', 'bcc', 'copy', 'mirror', 'redirect', 'route', 'grant', 'invite', 'approve', 'purchase', 'buy', 'order',
  'subscribe', 'star', 'follow', 'fork', 'commit', 'push', 'merge', 'disable', 'chmod', 'modify', 'overwrite',
  'append', 'attach', 'read', 'collect', 'gather', 'harvest', 'dump', 'back', 'backup', 'archive', 'write', 'save',
  'store', 'include',
]);

/**
 * Words that head a label in front of a sentence ("Note:", "Compliance note for assistants:", "Internal policy
 * (assistants only):"): a notice, a rule, or a flag of urgency. A label is read past to the sentence it introduces.
 */
export const LABEL_WORDS = new Set([
  'note', 'notes', 'notice', 'nb', 'important', 'mandatory', 'required', 'critical', 'attention', 'warning', 'caution', 'alert',
  'reminder', 'policy', 'policies', 'requirement', 'requirements', 'rule', 'rules', 'instruction', 'instructions',
  'directive', 'guideline', 'guidelines', 'compliance', 'memo', 'advisory', 'protocol', 'system', 'admin', 'assistant',
]);

/** Words that name the model or agent as the one addressed. */
export const MODEL_SUBJECT = /^(?:you|the\s+(?:assistant|model|agent|ai|llm|bot|copilot|chatbot)|assistants?|agents?|models?|ai|llms?|claude|gpt|gemini|cursor)$/i;

/** Argument slots of messaging, payment and request tools that a shadowing text rewrites. */
export const RECIPIENT_SLOTS = /\b(?:recipients?|to|cc|bcc|destination|address(?:ee)?|receiver|channel|webhook|endpoint|url|host|server|account|iban|wallet|payee|beneficiary|phone(?:\s+number)?|number|email(?:\s+address)?|reply-?to|sender|from|target|remote|origin|upstream|proxy|base\s*url|api\s*url|repo(?:sitory)?|branch|owner|path|directory|folder|bucket|amount|sum|user(?:name)?|assignee|reviewer)\b/i;

/**
 * Concepts the analyser recognises in languages it does not parse: enough to see secrecy, overrides and orders to
 * send data in a description that switches language, which it then reports as read only in part.
 */
export const FOREIGN_CONCEPTS: Readonly<Record<'audience' | 'tell' | 'negation' | 'override' | 'instructions' | 'rank' | 'send' | 'read' | 'secret' | 'always', RegExp>> = {
  audience: /usuari[oa]s?|utilisateurs?|benutzer\w*|nutzer\w*|anwender\w*|usuários?|utente|utenti|gebruiker\w*|użytkownik\w*|пользовател\w*|用户|使用者|ユーザー|사용자|kullanıcı\w*/iu,
  tell: /dig(?:a|as|ás)\b|decir|mencion\w*|inform\w*|avis\w*|révél\w*|dis\b|dire\b|sag\w*|erwähn\w*|mitteil\w*|benachrichtig\w*|diga\b|contar|dizer|menzion\w*|rivel\w*|dire\b|vertel\w*|meld\w*|powiedz\w*|informuj\w*|сообща\w*|говор\w*|упомина\w*|сказ\w*|告诉|提及|通知|透露|伝え|言わ|知らせ|알리|söyle\w*/iu,
  negation: /\bno\b|\bnunca\b|\bjamais\b|\bne\b|\bpas\b|\bnicht\b|\bniemals\b|\bkein\w*|\bnão\b|\bnon\b|\bmai\b|\bniet\b|\bnooit\b|\bnie\b|\bне\b|\bникогда\b|不要|别|勿|不得|しないで|ないで|決して|하지\s*마|asla|yapma/iu,
  override: /ignor\w*|olvid\w*|oubli\w*|ignorier\w*|vergiss\w*|esquec\w*|dimentic\w*|vergeet|zignoruj\w*|игнорир\w*|забуд\w*|忽略|无视|無視|忘れ|무시|yok\s*say/iu,
  instructions: /instrucci\w*|instruction\w*|anweisung\w*|instruç\w*|istruzion\w*|instructie\w*|instrukcj\w*|инструкц\w*|指令|指示|说明|命令|지시|talimat\w*|règles|regeln|reglas|regras|regole|system\w*|sistema|système|систем\w*|系统|システム/iu,
  rank: /prioridad|priorité|priorität|vorrang|prioridade|priorità|voorrang|priorytet|приоритет|优先|優先|우선|öncelik/iu,
  send: /envi[aáeé]\w*|mand[ae]\w*|envoy\w*|transmet\w*|send\w*|schick\w*|übermittel\w*|übertrag\w*|invi[ae]\w*|verstuur\w*|wyślij|отправ\w*|перешл\w*|发送|传送|转发|送信|送っ|転送|보내|전송|gönder\w*/iu,
  read: /le[ae]\b|leer|lis\b|lire|lies\b|lesen|leia|ler\b|leggi\w*|lees\b|przeczytaj|прочита\w*|читай|读取|阅读|読み|読ん|읽|oku\w*/iu,
  secret: /secret\w*|geheim\w*|segredo|segreto|contraseña|mot\s+de\s+passe|passwort|senha|clave|clé|schlüssel|chave|chiave|секрет\w*|пароль|ключ\w*|密码|密钥|秘密|パスワード|鍵|비밀|şifre/iu,
  always: /siempre|toujours|immer|sempre|altijd|zawsze|всегда|总是|始终|必ず|常に|항상|her\s+zaman|obligatori\w*|obligatoire|verpflichtend|muss|debe|doit|deve|должен|必须|必要があります|반드시|mutlaka/iu,
};
