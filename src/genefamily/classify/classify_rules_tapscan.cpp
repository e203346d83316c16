// The built-in family rules: TAPscan v4's published transcription-associated
// protein rules (rules v82 and domain list v4 of the Rensing lab's TAPscan) restated in bioagent's rule format (see
// classify.h for the format). The thresholds are bioagent's own defaults for profiles without gathering (GA) lines:
// TAPscan applies Pfam's GA values and per-domain coverage values that the profiles given to `classify` often lack.
#include "genefamily/classify/classify.h"

namespace bioagent::gf {

std::string_view builtin_family_rules() {
  return R"rules(# format: bioagent gene-family rules 1
# source	TAPscan v4 rules v82 and domain list v4, restated
#
# Defaults for profiles without GA lines: a domain hit counts when its bit score
# reaches min_domain_score and its alignment covers min_coverage of the model.
# The two values are uniform (no per-domain value is fitted); they were chosen
# from a sweep (20-25 bits, coverage 0.2-0.5) against TAPscan's calls on three
# Ostreococcus proteomes, so agreement on those proteomes is not an independent test.
default	min_domain_score	22
default	min_sequence_score	0
default	min_coverage	0.3
#
# domain	NAME	model names or Pfam accessions that stand for it
domain	Acetyltransf_1	Acetyltransf_1, PF00583
domain	Alfin-like	Alfin-like
domain	ALOG	ALOG
domain	AP2	AP2, PF00847
domain	ARID	ARID, PF01388
domain	AUX_IAA	AUX_IAA, PF02309
domain	Auxin_resp	Auxin_resp, PF06507
domain	B3	B3, PF02362
domain	BEL	BEL, BELL
domain	BES1_N	BES1_N, PF05687
domain	BSD	BSD, PF03909
domain	BTB	BTB, PF00651
domain	bZIP_1	bZIP_1, PF00170
domain	bZIP_2	bZIP_2, PF07716
domain	bZIP_AUREO	bZIP_AUREO
domain	bZIP_CDD	bZIP_CDD
domain	C1HDZ	C1HDZ
domain	C2H2-IDD	C2H2-IDD
domain	C2HDZ	C2HDZ
domain	C1_2	C1_2
domain	CAF1C_H4-bd	CAF1C_H4-bd, PF12265
domain	CBFB_NFYA	CBFB_NFYA, PF02045
domain	CBP	CBP
domain	CCT	CCT, PF06203
domain	CG-1	CG-1, PF03859
domain	CRF	CRF
domain	CSD	CSD, PF00313
domain	CXC	CXC
domain	DDT	DDT, PF02791
domain	DEAD	DEAD, PF00270
domain	DNC	DNC
domain	dsrm	dsrm, PF00035
domain	DUF260	DUF260, PF03195
domain	DUF296	DUF296, PF03479
domain	DUF3591	DUF3591
domain	DUF547	DUF547, PF04784
domain	DUF573	DUF573, PF04504
domain	DUF632	DUF632, PF04782
domain	DUF702	DUF702, PF05142
domain	E2F_TDP	E2F_TDP, PF02319
domain	EIN3	EIN3, PF04873
domain	FHA	FHA, PF00498
domain	FIE_clipped_for_HMM	FIE_clipped_for_HMM
domain	FLO_LFY	FLO_LFY, PF01698
domain	FYRC	FYRC, PF05965
domain	FYRN	FYRN, PF05964
domain	G2-like_Domain	G2-like_Domain, G2-like
domain	GAGA_bind	GAGA_bind, PF06217
domain	GATA	GATA, PF00320
domain	GIY_YIG	GIY_YIG
domain	GRAS	GRAS, PF03514
domain	Helicase_C	Helicase_C, PF00271
domain	HLH	HLH, PF00010
domain	HMG_box	HMG_box, PF00505
domain	Homeobox	Homeobox, PF00046
domain	Homeobox_KN	Homeobox_KN
domain	HRT	HRT, HRT-like
domain	HSF_DNA-bind	HSF_DNA-bind, PF00447
domain	IQ	IQ, PF00612
domain	JmjC	JmjC, PF02373
domain	JmjN	JmjN, PF02375
domain	K-box	K-box, PF01486
domain	KNOX1	KNOX1, PF03790
domain	KNOX2	KNOX2, PF03791
domain	KNOXC	KNOXC
domain	LD	LD
domain	LIM	LIM
domain	LOB2	LOB2
domain	LUFS_Domain	LUFS_Domain
domain	MBF1	MBF1, PF08523
domain	Med26	Med26, PF08711
domain	Med31	Med31, PF05669
domain	Med6	Med6, PF04934
domain	Med7	Med7, PF05983
domain	MEKHLA	MEKHLA, PF08670
domain	mTERF	mTERF, PF02536
domain	Myb_DNA-binding	Myb_DNA-binding, PF00249
domain	NAM	NAM, PF02365
domain	NDX	NDX
domain	NF-YB	NF-YB
domain	NF-YC	NF-YC
domain	NLP	NLP
domain	NOZZLE	NOZZLE
domain	O-FucT	O-FucT, PF10250
domain	Ovate	Ovate, PF04844
domain	PAH	PAH, PF02671
domain	PAZ	PAZ, PF02170
domain	PC4	PC4, PF02229
domain	PHD	PHD, PF00628
domain	PINTOX	PINTOX
domain	Piwi	Piwi, PF02171
domain	PLATZ	PLATZ, PF04640
domain	PP2C	PP2C, PF00481
domain	QLQ	QLQ, PF08880
domain	RB_B	RB_B, PF01857
domain	Rcd1	Rcd1, PF04078
domain	Response_reg	Response_reg, PF00072
domain	RFX_DNA_binding	RFX_DNA_binding, PF02257
domain	RHD_DNA_bind	RHD_DNA_bind, PF00554
domain	Ribonuclease_3	Ribonuclease_3, PF00636
domain	RRN3	RRN3, PF05327
domain	Runt	Runt, PF00853
domain	RWP-RK	RWP-RK, PF02042
domain	S1FA	S1FA, PF04689
domain	SAWADEE	SAWADEE
domain	SBP	SBP, PF03110
domain	SET	SET, PF00856
domain	SH2	SH2, PF00017
domain	Sigma70_r2	Sigma70_r2, PF04542
domain	Sigma70_r3	Sigma70_r3, PF04539
domain	Sigma70_r4	Sigma70_r4, PF04545
domain	SIR2	SIR2, PF02146
domain	SNF2_N	SNF2_N, PF00176
domain	SRF-TF	SRF-TF, PF00319
domain	SSXT	SSXT, PF05030
domain	START	START, PF01852
domain	STAT_bind	STAT_bind, PF02864
domain	STER_AP	STER_AP, SAP
domain	SWIB	SWIB, PF02201
domain	SWIRM	SWIRM, PF04433
domain	TANGO2	TANGO2, PF05742
domain	TCP	TCP, PF03634
domain	TCR	TCR, PF03638
domain	TEA	TEA, PF01285
domain	TF_AP-2	TF_AP-2, PF03299
domain	Tfb2	Tfb2, PF03849
domain	tify	tify, PF06200
domain	trihelix	trihelix
domain	Tub	Tub, PF01167
domain	ULT_Domain	ULT_Domain
domain	VARL	VARL
domain	VEFS-Box	VEFS-Box, PF09733
domain	VOZ_Domain	VOZ_Domain, VOZ
domain	WD40	WD40, PF00400
domain	WHIM1	WHIM1, PF15612
domain	Whirly	Whirly, PF08536
domain	WOX_HD	WOX_HD, Wus_type_Homeobox
domain	WRC	WRC, PF08879
domain	WRKY	WRKY, PF03106
domain	WSD	WSD, PF15613
domain	YABBY	YABBY, PF04690
domain	zf-AN1	zf-AN1, PF01428
domain	zf-B_box	zf-B_box, PF00643
domain	zf-C2H2	zf-C2H2, PF00096
domain	zf-C5HC2	zf-C5HC2, PF02928
domain	zf-CCCH	zf-CCCH, PF00642
domain	zf-Dof	zf-Dof, PF02701
domain	ZF-HD_dimer	ZF-HD_dimer, PF04770
domain	zf-MIZ	zf-MIZ, PF02891
domain	zf-MYST	zf-MYST
domain	zf-TAZ	zf-TAZ, PF02135
domain	zf-ZPR1	zf-ZPR1, PF03367
domain	Zn_clus	Zn_clus, PF00172
domain	ZPR	ZPR
domain	zz-ADA2	zz-ADA2
#
# yields	A	B, C: A is ignored when B or C scores a better E-value in the same
# protein (similar domains that hit the same region).
yields	Myb_DNA-binding	G2-like_Domain
yields	G2-like_Domain	Myb_DNA-binding
yields	PHD	Alfin-like, C1_2
yields	Alfin-like	PHD, C1_2
yields	C1_2	PHD, Alfin-like
yields	GATA	zf-Dof
yields	zf-Dof	GATA
yields	FIE_clipped_for_HMM	WD40
#
# rule	NAME	FAMILY	SUBFAMILY	REQUIRED	FORBIDDEN
# Terms are domain names; NAME*N needs at least N hits, NAME*N-M between N and M.
rule	ABI3/VP1	ABI3/VP1	-	B3	AP2, Auxin_resp, WRKY
rule	Alfin-like	Alfin-like	-	Alfin-like	Homeobox, zf-TAZ, PHD
rule	AP2	AP2	AP2	AP2	CRF
rule	ARF	ARF	-	Auxin_resp	-
rule	Argonaute	Argonaute	-	Piwi, PAZ	-
rule	ARID	ARID	-	ARID	-
rule	Aux/IAA	Aux/IAA	-	AUX_IAA	Auxin_resp, B3
rule	BBR/BPC	BBR/BPC	-	GAGA_bind	-
rule	BES1	BES1	-	BES1_N	-
rule	bHLH	bHLH	bHLH	HLH	TCP
rule	bHLH_TCP	bHLH	bHLH_TCP	TCP	-
rule	bHSH	bHSH	-	TF_AP-2	-
rule	BSD domain containing	BSD domain containing	-	BSD	-
rule	bZIP1	bZIP	-	bZIP_1	HLH, Homeobox
rule	bZIP2	bZIP	-	bZIP_2	HLH, Homeobox
rule	bZIPAUREO	bZIP	-	bZIP_AUREO	HLH, Homeobox
rule	bZIPCDD	bZIP	-	bZIP_CDD	HLH, Homeobox
rule	C2C2_CO-like	C2C2_CO-like	-	CCT, zf-B_box	GATA, tify, PLATZ
rule	C2C2_Dof	C2C2_Dof	-	zf-Dof	GATA
rule	C2C2_GATA	C2C2_GATA	-	GATA	tify, zf-Dof
rule	C2C2_YABBY	C2C2_YABBY	-	YABBY	-
rule	C2H2	C2H2	C2H2	zf-C2H2	zf-MIZ, C2H2-IDD
rule	C3H	C3H	-	zf-CCCH	AP2, SRF-TF, Myb_DNA-binding*2-4, zf-C2H2
rule	CAMTA	CAMTA	-	CG-1, IQ	-
rule	NF-YA	NFY	NF-YA	CBFB_NFYA	bZIP_1, bZIP_2
rule	NF-YB	NFY	NF-YB	NF-YB	NF-YC
rule	NF-YC	NFY	NF-YC	NF-YC	NF-YB, HMG_box
rule	Coactivator p15	Coactivator p15	-	PC4	-
rule	CPP	CPP	-	TCR	-
rule	CSD	CSD	-	CSD	-
rule	CudA	CudA	-	STAT_bind, SH2	-
rule	DBP	DBP	-	DNC, PP2C	-
rule	DDT	DDT	-	DDT	Homeobox, Alfin-like
rule	Dicer	Dicer	-	DEAD, Helicase_C, Ribonuclease_3, dsrm	Piwi
rule	DUF246 domain containing/O-FucT	DUF246 domain containing/O-FucT	-	O-FucT	-
rule	DUF296 domain containing	DUF296 domain containing	-	DUF296	-
rule	DUF547 domain containing	DUF547 domain containing	-	DUF547	-
rule	DUF632 domain containing	DUF632 domain containing	-	DUF632	-
rule	DUF833 domain containing/TANGO2	DUF833 domain containing/TANGO2	-	TANGO2	-
rule	E2F/DP	E2F/DP	-	E2F_TDP	-
rule	EIL	EIL	-	EIN3	-
rule	FHA	FHA	-	FHA	-
rule	GARP_ARR-B_G2	GARP_ARR-B	-	G2-like_Domain, Response_reg	CCT
rule	GARP_ARR-B_Myb	GARP_ARR-B	-	Response_reg, Myb_DNA-binding	CCT
rule	GARP_G2-like	GARP_G2-like	-	G2-like_Domain	Response_reg, Myb_DNA-binding
rule	GeBP	GeBP	-	DUF573	-
rule	GIF	GIF	-	SSXT	-
rule	GNAT	HAT	GNAT	Acetyltransf_1	PHD
rule	GRAS	GRAS	-	GRAS	-
rule	GRF	GRF	-	QLQ, WRC	-
rule	C3HDZ	HDZ	C3HDZ	Homeobox, START, MEKHLA	-
rule	C4HDZ	HDZ	C4HDZ	Homeobox, START	MEKHLA
rule	HD_PLINC	HD_PLINC	-	ZF-HD_dimer	-
rule	HD_WOX	HD_WOX	-	WOX_HD	-
rule	HD_DDT	HD_DDT	-	Homeobox, DDT, WHIM1, WSD	-
rule	HD_PHD	HD_PHD	-	PHD, Homeobox	-
rule	HD_PINTOX	HD_PINTOX	-	Homeobox, PINTOX	-
rule	HD_TALE_BEL	HD_TALE_BEL	-	Homeobox_KN, BEL	-
rule	HD_TALE_KNOX1	HD_TALE_KNOX1	-	Homeobox_KN, KNOX1, KNOX2	KNOXC
rule	HD_TALE_KNOX2	HD_TALE_KNOX2	-	Homeobox_KN, KNOX1, KNOX2, KNOXC	-
rule	HD-other	HD-other	-	Homeobox	EIN3, bZIP_1, WOX_HD, PINTOX, PHD, BEL
rule	HD_TALE	HD_TALE	-	Homeobox_KN	BEL, KNOX1, KNOX2
rule	HMG	HMG	-	HMG_box	ARID, YABBY
rule	HRT	ET	-	HRT	-
rule	HSF	HSF	-	HSF_DNA-bind	-
rule	IWS1	IWS1	-	Med26	-
rule	Jumonji_PKDM7	Jumonji_PKDM7	-	JmjC, JmjN, zf-C5HC2, FYRN, FYRC	-
rule	Jumonji_Other	Jumonji_Other	-	JmjC	-
rule	LFY	LFY	-	FLO_LFY	-
rule	LIM	LIM	-	LIM*2	-
rule	LUG	LUG	-	LUFS_Domain	-
rule	MADS	MADS	-	SRF-TF	K-box
rule	MADS_MIKC	MADS_MIKC	-	SRF-TF, K-box	-
rule	MBF1	MBF1	-	MBF1	-
rule	Med6	Med6	-	Med6	-
rule	Med7	Med7	-	Med7	-
rule	mTERF	mTERF	-	mTERF	-
rule	MYB-2R	MYB	MYB-2R	Myb_DNA-binding*2-2	G2-like_Domain, Response_reg, trihelix
rule	MYB-3R	MYB	MYB-3R	Myb_DNA-binding*3-3	G2-like_Domain, Response_reg, trihelix
rule	MYB-4R	MYB	MYB-4R	Myb_DNA-binding*4-4	G2-like_Domain, Response_reg, trihelix
rule	MYB-related	MYB	MYB-related	Myb_DNA-binding	ARID, G2-like_Domain, Response_reg, trihelix, Myb_DNA-binding*2-4
rule	NAC	NAC	-	NAM	-
rule	NZZ	NZZ	-	NOZZLE	-
rule	OFP	OFP	-	Ovate	-
rule	PcG_EZ	PcG_EZ	-	CXC, SET	-
rule	PcG_FIE	PcG_FIE	-	FIE_clipped_for_HMM, WD40	-
rule	PcG_VEFS	PcG_VEFS	-	VEFS-Box	zf-C2H2
rule	PcG_MSI	PcG_MSI	-	WD40, CAF1C_H4-bd	FIE_clipped_for_HMM
rule	PHD	PHD	-	PHD	Myb_DNA-binding, Alfin-like, ARID, DDT, Homeobox, JmjC, JmjN, SWIB, zf-TAZ, zf-MIZ, zf-CCCH, HMG_box
rule	PLATZ	PLATZ	-	PLATZ	-
rule	Pseudo ARR-B	Pseudo ARR-B	-	CCT, Response_reg	tify
rule	RB	RB	-	RB_B	-
rule	Rcd1-like	Rcd1-like	-	Rcd1	-
rule	Rel	Rel	-	RHD_DNA_bind	-
rule	RF-X	RF-X	-	RFX_DNA_binding	-
rule	RRN3	RRN3	-	RRN3	-
rule	Runt	Runt	-	Runt	-
rule	S1Fa-like	S1Fa-like	-	S1FA	-
rule	SAP	SAP	-	STER_AP	-
rule	SBP	SBP	-	SBP	-
rule	SET	SET	-	SET	zf-C2H2, TCR, CXC, PHD, Myb_DNA-binding
rule	Sigma70-like	Sigma70-like	-	Sigma70_r2, Sigma70_r3, Sigma70_r4	-
rule	Sin3	Sin3	-	PAH	WRKY
rule	Sir2	Sir2	-	SIR2	-
rule	SOH1	SOH1	-	Med31	-
rule	SRS	SRS	-	DUF702	-
rule	SWI/SNF_BAF60b	SWI/SNF_BAF60b	-	SWIB	-
rule	SWI/SNF_SNF2	SWI/SNF_SNF2	-	SNF2_N	AP2, PHD, zf-CCCH, Myb_DNA-binding, HMG_box
rule	SWI/SNF_SWI3	MYB-related	SWI/SNF_SWI3	SWIRM, Myb_DNA-binding	-
rule	TEA	TEA	-	TEA	-
rule	TFb2	TFb2	-	Tfb2	-
rule	tify	tify	-	tify	-
rule	TRAF	TRAF	-	BTB	zf-TAZ
rule	Trihelix	Trihelix	-	trihelix	-
rule	TUB	TUB	-	Tub	-
rule	ULT	ULT	-	ULT_Domain	-
rule	VARL	VARL	-	VARL	-
rule	VOZ	VOZ	-	VOZ_Domain	-
rule	Whirly	Whirly	-	Whirly	-
rule	WRKY	WRKY	-	WRKY	-
rule	Zinc finger, AN1 and A20 type	Zinc finger, AN1 and A20 type	-	zf-AN1	zf-C2H2
rule	Zinc finger, MIZ type	Zinc finger, MIZ type	-	zf-MIZ	zf-C2H2
rule	Zinc finger, ZPR1	Zinc finger, ZPR1	-	zf-ZPR1	-
rule	Zn_clus	Zn_clus	-	Zn_clus	-
rule	ALOG	ALOG	-	ALOG	-
rule	C2H2_IDD	C2H2	C2H2_IDD	C2H2-IDD, zf-C2H2	-
rule	MYST	HAT	MYST	zf-MYST	-
rule	CBP	HAT	CBP	CBP, zf-TAZ	BTB
rule	TAFII250	HAT	TAFII250	DUF3591	-
rule	LOB1	LBD	LOB1	DUF260	bZIP_1, bZIP_2, HLH, Homeobox
rule	LOB2	LBD	LOB2	LOB2	-
rule	LDL/FLD	LDL/FLD	-	SWIRM	Myb_DNA-binding
rule	ADA2	ADA2	-	zz-ADA2, Myb_DNA-binding	-
rule	RKD	RWP-RK	RKD	RWP-RK	NLP
rule	NLP	RWP-RK	NLP	RWP-RK, NLP	-
rule	CRF	AP2	CRF	CRF, AP2	-
rule	GIY_YIG	ET	-	GIY_YIG	-
rule	ZPR	ZPR	-	ZPR	-
rule	HD-LD	HD-LD	-	LD	-
rule	HD-NDX	HD-NDX	-	NDX	-
rule	HD-SAWADEE	HD-SAWADEE	-	SAWADEE	-
rule	C1HDZ	HDZ	C1HDZ	C1HDZ, Homeobox	START, MEKHLA
rule	C2HDZ	HDZ	C2HDZ	C2HDZ, Homeobox	START, MEKHLA
)rules";
}

}  // namespace bioagent::gf
