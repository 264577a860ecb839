// LaTeX command tables for the math renderer: which Unicode character each command stands
// for and how it behaves (relation, big operator with limits, named function, ...).

// "name=char name=char ..." into an object.
const pairs = (text) => Object.fromEntries(text.trim().split(/\s+/).map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
// "k=v" where the key is one character (which may itself be "=").
const charPairs = (text) => Object.fromEntries(text.trim().split(/\s+/).map((p) => [[...p][0], [...p].slice(2).join("")]));
const words = (text) => new Set(text.trim().split(/\s+/));

export const SYMBOLS = {
	...pairs(`
		alpha=α beta=β gamma=γ delta=δ epsilon=ϵ varepsilon=ε zeta=ζ eta=η theta=θ vartheta=ϑ iota=ι kappa=κ varkappa=ϰ
		lambda=λ mu=μ nu=ν xi=ξ pi=π varpi=ϖ rho=ρ varrho=ϱ sigma=σ varsigma=ς tau=τ upsilon=υ phi=ϕ varphi=φ chi=χ
		psi=ψ omega=ω Gamma=Γ Delta=Δ Theta=Θ Lambda=Λ Xi=Ξ Pi=Π Sigma=Σ Upsilon=Υ Phi=Φ Psi=Ψ Omega=Ω`),
	...pairs(`
		pm=± mp=∓ times=× div=÷ cdot=· ast=∗ star=⋆ circ=∘ bullet=• oplus=⊕ ominus=⊖ otimes=⊗ oslash=⊘ odot=⊙
		bigcirc=○ dagger=† ddagger=‡ amalg=⨿ uplus=⊎ sqcap=⊓ sqcup=⊔ triangleleft=◁ triangleright=▷ wr=≀ cap=∩ cup=∪
		bigcap=⋂ bigcup=⋃ bigwedge=⋀ bigvee=⋁ bigsqcup=⨆ biguplus=⨄ bigoplus=⨁ bigotimes=⨂ bigodot=⨀ setminus=∖`),
	...pairs(`
		in=∈ notin=∉ ni=∋ subset=⊂ supset=⊃ subseteq=⊆ supseteq=⊇ sqsubset=⊏ sqsupset=⊐ sqsubseteq=⊑ sqsupseteq=⊒
		prec=≺ preceq=≼ succ=≻ succeq=≽ ll=≪ gg=≫ le=≤ leq=≤ leqslant=≤ ge=≥ geq=≥ geqslant=≥ ne=≠ neq=≠ equiv=≡
		approx=≈ sim=∼ simeq=≃ cong=≅ asymp=≍ doteq=≐ propto=∝ parallel=∥ perp=⊥ mid=∣ vdash=⊢ dashv=⊣ models=⊨
		Vdash=⊩ Vvdash=⊪ nvdash=⊬ nvDash=⊭ forall=∀ exists=∃ nexists=∄ neg=¬ land=∧ wedge=∧ lor=∨ vee=∨`),
	...pairs(`
		to=→ rightarrow=→ longrightarrow=→ leftarrow=← longleftarrow=← gets=← leftrightarrow=↔ longleftrightarrow=↔
		hookleftarrow=↩ hookrightarrow=↪ twoheadleftarrow=↞ twoheadrightarrow=↠ leftharpoonup=↼ leftharpoondown=↽
		rightharpoonup=⇀ rightharpoondown=⇁ rightleftharpoons=⇌ leftrightharpoons=⇋ nearrow=↗ searrow=↘ swarrow=↙
		nwarrow=↖ rightsquigarrow=⇝ leadsto=⇝ Rightarrow=⇒ Longrightarrow=⇒ Leftarrow=⇐ Longleftarrow=⇐
		Leftrightarrow=⇔ Longleftrightarrow=⇔ implies=⇒ iff=⇔ mapsto=↦ longmapsto=↦ uparrow=↑ downarrow=↓`),
	...pairs(`
		partial=∂ nabla=∇ int=∫ iint=∬ iiint=∭ oint=∮ sum=∑ prod=∏ coprod=∐ infty=∞ emptyset=∅ varnothing=∅ angle=∠
		therefore=∴ because=∵ aleph=ℵ beth=ℶ gimel=ℷ daleth=ℸ top=⊤ bot=⊥ triangle=△ square=□ lozenge=◊ checkmark=✓
		complement=∁ wp=℘ prime=′ ldots=… dots=… cdots=⋯ vdots=⋮ ddots=⋱ ell=ℓ hbar=ℏ Im=ℑ Re=ℜ langle=⟨ rangle=⟩
		vert=| lvert=| rvert=| Vert=‖ lVert=‖ rVert=‖ lbrace={ rbrace=} backslash=\\ lfloor=⌊ rfloor=⌋ lceil=⌈
		rceil=⌉ colon=:`),
};

/** Function names set upright (\sin, \log, ...). */
export const NAMED_OPERATORS = words(`arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim liminf
	limsup ln log max min Pr sec sin sinh sup tan tanh`);

/** Operators whose subscript becomes a limit ("lim[x→0]" inline, stacked in display). */
export const LIMIT_OPERATORS = words("argmax argmin inf injlim lim liminf limsup max min projlim sup");

/** Big symbols whose scripts stack above and below in display math. */
export const DISPLAY_LIMIT_SYMBOLS = words("bigcap bigcup bigodot bigoplus bigotimes bigsqcup biguplus bigvee bigwedge coprod int iint iiint oint prod sum");

/** Commands drawn with a space on each side. */
export const RELATION_COMMANDS = words(`Leftarrow Leftrightarrow Longleftarrow Longleftrightarrow Longrightarrow Rightarrow Vdash Vvdash
	approx asymp cong dashv doteq downarrow equiv ge geq geqslant gets gg hookleftarrow hookrightarrow iff implies in leadsto le
	leftarrow leftharpoondown leftharpoonup leftrightarrow leftrightharpoons leq leqslant ll longleftarrow longleftrightarrow
	longmapsto longrightarrow mapsto mid models ne nearrow neq ni notin nvdash nvDash nwarrow parallel perp prec preceq propto
	rightharpoondown rightharpoonup rightleftharpoons rightarrow rightsquigarrow searrow sim simeq sqsubset sqsubseteq sqsupset
	sqsupseteq subset subseteq succ succeq supset supseteq swarrow to triangleleft triangleright twoheadleftarrow
	twoheadrightarrow uparrow vdash`);

/** \not applied to these gives the precomposed negation. */
export const NEGATED = charPairs(`<=≮ >=≯ ==≠ ∈=∉ ∋=∌ ∣=∤ ∥=∦ ∼=≁ ≃=≄ ≅=≇ ≈=≉ ≡=≢ ≤=≰ ≥=≱ ≺=⊀ ≻=⊁ ⊂=⊄ ⊃=⊅ ⊆=⊈ ⊇=⊉
	⊢=⊬ ⊨=⊭ ↔=↮ ←=↚ →=↛ ⇒=⇏ ⇐=⇍ ⇔=⇎ ≼=⋠ ≽=⋡`);

export const BLACKBOARD = pairs("C=ℂ H=ℍ N=ℕ P=ℙ Q=ℚ R=ℝ Z=ℤ");

const scripts = (chars, marks) => Object.fromEntries([...chars].map((c, i) => [c, [...marks][i]]));
export const SUPERSCRIPTS = scripts("0123456789+-=()abcdefghijklmnoprstuvwxyz", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ");
export const SUBSCRIPTS = scripts("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ");

export const SPACING_COMMANDS = words(", : ; > enspace enskip medspace quad qquad thickspace thinspace");
SPACING_COMMANDS.add(" ");
export const NEGATIVE_SPACING_COMMANDS = words("! negmedspace negthickspace negthinspace");
export const IGNORED_COMMANDS = words("displaystyle limits nolimits scriptstyle scriptscriptstyle textstyle");
export const SIZE_COMMANDS = words("big Big bigg Bigg bigl Bigl biggl Biggl bigr Bigr biggr Biggr");

/** Commands whose argument is shown as plain text (fonts, \text, braces...). */
export const PLAIN_WRAPPERS = words(`emph mathcal mathbf mathfrak mathit mathrm mathnormal mathscr mathsf mathtt mathup mbox overbrace
	pmb smash substack text textbf textit textmd textnormal textrm textsc textsf textsl texttt textup underbrace bm boldsymbol`);

/** Accents as combining characters. */
export const ACCENTS = {
	acute: "\u0301",
	bar: "\u0305",
	breve: "\u0306",
	check: "\u030c",
	ddot: "\u0308",
	dot: "\u0307",
	grave: "\u0300",
	hat: "\u0302",
	mathring: "\u030a",
	overleftarrow: "\u20d6",
	overleftrightarrow: "\u20e1",
	overline: "\u0305",
	overrightarrow: "\u20d7",
	tilde: "\u0303",
	underline: "\u0332",
	vec: "\u20d7",
	widehat: "\u0302",
	widetilde: "\u0303",
};
