"""Word lists the checkers need: English stop words and English verb forms.

The stop words are the common English function-word list (pronouns, articles, auxiliaries,
prepositions, conjunctions and the clitic fragments a \\w+ tokenizer leaves, such as "don", "t").
Verb forms are generated from base forms: third person -s, past -ed, gerund -ing, plus the irregular
pasts and participles; the first word of a response is called a verb when it is one of them.
"""

from __future__ import annotations

STOP_WORDS = frozenset("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom
this that that'll these those am is are was were be been being have has had having do does did doing a an the
and but if or because as until while of at by for with about against between into through during before after
above below to from up down in out on off over under again further then once here there when where why how all
any both each few more most other some such no nor not only own same so than too very s t can will just don
don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn
hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn
shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
""".split())

_BASE_VERBS = """
accept achieve acknowledge act adapt add address adjust admire admit adopt advance advise affect agree aim allow
analyze analyse answer appear apply appreciate approach approve argue arrange ask assess assign assist assume
attach attack attempt attend avoid bake balance be bear beat become begin believe belong bend bet bind bite
blend blow boil borrow break breathe bring broadcast browse build burn buy calculate call calm capture care
carry catch celebrate change charge chase check cheer choose claim clarify classify clean clear click climb
close collect combine come compare compile complete compose compute concentrate conclude conduct confirm
connect consider construct consult contact continue contribute control convert convince cook copy correct
count cover crack craft crawl create cross cry cultivate cut dance deal debate decide declare decorate define
delete deliver demonstrate deny describe design determine develop devise die dig discover discuss dive divide
do double download drag draw dream dress drink drive drop dry earn eat edit educate eliminate embrace emphasize
employ enable encourage end engage enhance enjoy ensure enter establish estimate evaluate examine execute exercise
exist expand expect experience experiment explain explore express extend face fall fasten feed feel fetch fight
fill find finish fit fix flee fling float flow fly focus fold follow forget forgive form formulate freeze gain
gather generate get give glance go grab grant greet grind grip grow guarantee guess guide hand handle hang happen
harness hate have head hear help hide highlight hire hit hold hope hug hunt hurry identify ignore illustrate imagine
implement improve include incorporate increase indicate inform inspect install integrate interpret introduce
invent investigate invite join judge jump justify keep kick kill kneel knit knock know label land last laugh
launch lay lead lean leap learn leave lend let lie lift light like limit link list listen live load locate
look lose love maintain make manage map mark master match mean measure meet melt mention merge mind minimize
mix modify monitor motivate move multiply name navigate need negotiate note notice observe obtain offer open
operate order organize organise outline overcome own paint participate pass pause pay perform permit persuade
pick picture place plan plant play plug point polish ponder pour practice practise praise pray predict prefer
prepare present preserve press pretend prevent print prioritize proceed process produce program promise promote
protect prove provide publish pull punch purchase pursue push put question quit quote race raise rank rate reach
react read realize realise rebuild recall receive recognize recommend record recover reduce refer reflect refuse
regard register reject relax release rely remain remember remind remove repair repeat replace reply report
represent request require research reserve resolve respect respond rest restore retain retire return reveal
review revise ride ring rise risk roll rub ruin run rush save say scan schedule search see seek select sell
send separate serve set settle shake shape share shine shoot show shrink shut sing sink sit sketch skip sleep
slide smell smile solve sort speak specify spend spin split spread stand start state stay steal step stick
stimulate stir stop store strengthen stretch strike strive structure study submit succeed suggest summarize
summarise supply support suppose surround survive swim swing take talk taste teach tear tell tend test thank
think throw tie train transfer transform translate travel treat trust try turn type uncover understand undertake
unite unlock update upgrade upload use utilize validate value verify visit visualize wait wake walk want warm
warn wash watch wear weave welcome win wish withdraw wonder work worry wrap write yell
""".split()

_IRREGULAR = """
am is are was were been being has had does did done doing went gone made said told took taken gave given
came got gotten saw seen knew known thought found felt kept left lost meant met paid sent spent stood understood
began begun bought brought built caught chose chosen drew drawn drank drunk drove driven ate eaten fell fallen
fed fought fled flew flown forgot forgotten forgave froze frozen grew grown hung heard held hid hidden led lent
lay lain laid rode ridden rang rung rose risen ran sang sung sank sunk sat slept slid spoke spoken split spun
stole stolen stuck struck swam swum swung taught tore torn threw thrown woke woken wore worn wove woven won
withdrew wrote written broke broken bit bitten blew blown bent bound shook shaken shone shot shown shrank
strove ground knelt leapt overcame rebuilt undertook undertaken
""".split()


def _forms(base: str) -> set[str]:
    forms = {base}
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        forms.add(base + "es")
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        forms.add(base[:-1] + "ies")
    else:
        forms.add(base + "s")
    if base.endswith("e"):
        forms.update({base + "d", base[:-1] + "ing"})
    elif base.endswith("y") and base[-2:-1] not in "aeiou":
        forms.update({base[:-1] + "ied", base + "ing"})
    else:
        forms.update({base + "ed", base + "ing"})
        # stop -> stopped, plan -> planning: short consonant-vowel-consonant stems double the consonant
        if len(base) <= 4 and base[-1] not in "aeiouwxy" and base[-2] in "aeiou" and base[-3:-2] not in "aeiou":
            forms.update({base + base[-1] + "ed", base + base[-1] + "ing"})
    return forms


VERB_FORMS = frozenset(set().union(*(_forms(base) for base in _BASE_VERBS)) | set(_IRREGULAR))
